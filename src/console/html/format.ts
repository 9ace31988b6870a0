/** An instant as the console shows it: `2026-03-01 10:15:02 UTC` (the API's own times are UTC too). */
export const formatTime = (iso: string | Date | null | undefined): string => {
  if (iso === null || iso === undefined) return '—';
  const date = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(date.getTime())) return String(iso);
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
};

/** A whole number with thousands separated (`12,345`). */
export const formatCount = (n: number): string => n.toLocaleString('en-US');

/** A value of a record as a field-by-field change shows it: JSON for anything but a plain string. */
export const formatValue = (value: unknown): string => {
  if (value === undefined) return '(not set)';
  if (value === null) return 'null';
  return typeof value === 'string' ? value : JSON.stringify(value);
};

/**
 * A stored event's type as the console names events everywhere, the way webhook event
 * types are written: `ContactCreated` → `contact.created`, `DealStatusChanged` →
 * `deal.status_changed` (the record's kind, a dot, the rest in snake case).
 */
export const formatEventType = (type: string): string => {
  const words = type.match(/[A-Z][a-z0-9]*/g);
  if (!words || words.join('') !== type || words.length < 2) return type;
  const [kind, ...rest] = words.map((word) => word.toLowerCase());
  return `${kind}.${rest.join('_')}`;
};
