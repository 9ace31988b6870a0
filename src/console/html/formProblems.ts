import { html, type Html } from './html.js';

/** A form sent back with what was wrong with it, field by field. */
export interface FormWithProblems {
  readonly problems: Readonly<Record<string, string>>;
}

/** The problem of a field, under it, with the id its field points at; nothing when it has none. */
export const problemOf = (form: FormWithProblems, field: string): Html | '' =>
  form.problems[field] ? html`<p class="bad" id="${field}-problem">${form.problems[field]}</p>` : '';

/** The attributes that tie a field to its problem for assistive technology; nothing when it has none. */
export const describedBy = (form: FormWithProblems, field: string): Html | '' =>
  form.problems[field] ? html` aria-describedby="${field}-problem" aria-invalid="true"` : '';
