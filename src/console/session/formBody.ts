import type { Context } from 'koa';
import { ConsolePageError } from '../ConsolePageError.js';

/** The most a console form may send: its fields are short (names, URLs, tags). */
export const FORM_LIMIT_BYTES = 64 * 1024;

/** The fields of a form, each name with its values in order (checkboxes repeat a name). */
export type FormFields = URLSearchParams;

const tooLarge = (): ConsolePageError => new ConsolePageError(413, 'This form is too large', `A console form sends at most ${FORM_LIMIT_BYTES / 1024} kB.`);

/**
 * The request's form (`application/x-www-form-urlencoded`, what the console's
 * forms send), read once and kept on `ctx.state.form`. Anything else is a 415
 * page; more than 64 kB a 413, read no further.
 */
export const readForm = async (ctx: Context): Promise<FormFields> => {
  const kept = ctx.state.form as FormFields | undefined;
  if (kept) return kept;
  const type = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new ConsolePageError(415, 'This request cannot be read', 'Console changes are sent by the console’s own forms.');
  }
  const declared = Number(ctx.get('Content-Length') || '0');
  if (declared > FORM_LIMIT_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  ctx.state.form = form;
  return form;
};

/** One field, trimmed; '' when absent. */
export const field = (form: FormFields, name: string): string => (form.get(name) ?? '').trim();

/** A `datetime-local` field (`YYYY-MM-DDTHH:MM[:SS]`), read as UTC (the console shows every time in UTC); null when it is not one. */
export const utcDateTimeField = (value: string): Date | null => {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return null;
  const at = new Date(`${value.length === 16 ? `${value}:00` : value}Z`);
  return Number.isNaN(at.getTime()) ? null : at;
};
