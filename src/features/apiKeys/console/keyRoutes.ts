import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import { keyState, type ApiKeyQueriesOf } from '../application/apiKeyQueries.js';
import { issueApiKey } from '../application/issueApiKey.js';
import { ApiKeyName, describeApiKeyError } from '../application/keyInput.js';
import { revokeApiKey } from '../application/revokeApiKey.js';
import { nameCharacterProblem, type NameCharacterProblem } from '../../../shared/nameCharacters.js';
import { ApiKeyType } from '../../../shared/permissions.js';
import type { ConsoleDeps } from '../../../console/ConsoleDeps.js';
import { ConsolePageError } from '../../../console/ConsolePageError.js';
import { consoleUrl } from '../../../console/html/layout.js';
import { confirmBody } from '../../../console/pages/confirmPage.js';
import { EMPTY_KEY_FORM, keyCreatedBody, keysBody, permissionsOf, type KeyForm, type KeysPageView } from './keysPage.js';
import { afterChange, consoleMetadata, csrfOf, redirectTo, renderPage } from '../../../console/pages/render.js';
import { field, readForm, utcDateTimeField } from '../../../console/session/formBody.js';
import { signedInOf } from '../../../console/session/requireSession.js';

const NOTICES: Readonly<Record<string, string>> = { revoked: 'The key was revoked: requests with it are refused from now on.' };

/** Why a key's name is refused for its characters (see nameCharacters), in the form's words. */
const NAME_CHARACTER_PROBLEMS: Readonly<Record<NameCharacterProblem, string>> = {
  BidiControl: 'Remove the bidirectional override and isolate characters (U+202A–U+202E, U+2066–U+2069).',
  NothingVisible: 'Give the key a name with at least one visible character.',
};

/**
 * API keys: GET /console/keys lists them (hints, never keys) with the create
 * form; POST /console/keys creates one through `issueApiKey` and shows it once;
 * POST /console/keys/:id/revoke revokes one of the company's keys through
 * `revokeApiKey`, after a confirmation. The company's keys are read through
 * the queries `queriesOf` gives over the read models (the feature's index.ts
 * hands over `apiKeyQueriesOf`).
 */
export const keyRoutes = (queriesOf: ApiKeyQueriesOf) => (deps: ConsoleDeps): Router => {
  const router = new Router();
  const keys = queriesOf(deps.readModels);

  /** The keys page's view model: every key of the company with its state now, and the form. */
  const keysPageView = async (ctx: Context, form: KeyForm): Promise<KeysPageView> => {
    const companyKeys = await keys.keysOf(signedInOf(ctx).session.companyId);
    const now = deps.commands.clock.now();
    return { basePath: deps.basePath, csrf: csrfOf(ctx), keys: companyKeys.map((key) => ({ ...key, state: keyState(key, now) })), form };
  };

  const keysPage = async (ctx: Context, form: KeyForm, status = 200) => {
    const notice = typeof ctx.query.done === 'string' ? (NOTICES[ctx.query.done] ?? null) : null;
    renderPage(ctx, deps, { title: 'API keys', section: 'keys', status, notice, body: keysBody(await keysPageView(ctx, form)) });
  };

  router.get('/console/keys', (ctx) => keysPage(ctx, EMPTY_KEY_FORM));

  router.post('/console/keys', async (ctx) => {
    const form = await readForm(ctx);
    const sent: KeyForm = { name: field(form, 'name'), type: field(form, 'type'), permissions: form.getAll('permissions'), expiresAt: field(form, 'expiresAt'), problems: {} };
    const problems: Record<string, string> = {};
    const name = ApiKeyName.decode(sent.name.trim());
    if (sent.name.trim() === '') problems.name = 'Give the key a name.';
    else if (E.isLeft(name)) {
      const characterProblem = nameCharacterProblem(sent.name.trim());
      problems.name = characterProblem === null ? 'Use at most 200 characters, with no control characters.' : NAME_CHARACTER_PROBLEMS[characterProblem];
    }
    const permissions = permissionsOf(sent.permissions);
    if (!ApiKeyType.is(sent.type)) problems.type = 'Choose a type.';
    if (permissions.length === 0) problems.permissions = 'Choose at least one permission.';
    const expiresAt = sent.expiresAt === '' ? null : utcDateTimeField(sent.expiresAt);
    if (sent.expiresAt !== '' && expiresAt === null) problems.expiresAt = 'Give a date and time, or leave it empty.';
    if (Object.keys(problems).length > 0 || E.isLeft(name)) return keysPage(ctx, { ...sent, problems }, 422);
    const issued = await issueApiKey(deps.commands, {
      companyId: signedInOf(ctx).session.companyId,
      name: name.right,
      type: sent.type as ApiKeyType,
      permissions,
      expiresAt,
      metadata: consoleMetadata(ctx),
    });
    if (E.isLeft(issued)) {
      const error = issued.left;
      if (error.kind === 'ExpiryNotInFuture') return keysPage(ctx, { ...sent, problems: { expiresAt: 'Give a time in the future.' } }, 422);
      throw new ConsolePageError(409, 'The key was not created', error.kind === 'CompanyNotFound' ? 'This company is not known.' : describeApiKeyError(error));
    }
    await afterChange(deps, issued.right.position);
    renderPage(ctx, deps, { title: 'API key created', section: 'keys', status: 201, body: keyCreatedBody({ basePath: deps.basePath, key: issued.right }) });
  });

  router.post('/console/keys/:id/revoke', async (ctx) => {
    const { companyId } = signedInOf(ctx).session;
    // Another company's key is as unknown as a key that does not exist.
    const key = await keys.keyOf(companyId, ctx.params.id!);
    if (!key) throw new ConsolePageError(404, 'This key is not one of yours', 'It may have been created by another company, or not at all.');
    const form = await readForm(ctx);
    if (field(form, 'confirmed') !== 'yes') {
      return renderPage(ctx, deps, {
        title: 'Revoke this key?',
        section: 'keys',
        body: confirmBody({
          question: `Revoke the key ${key.label}?`,
          detail: 'Requests with it are refused from now on. This cannot be undone.',
          action: consoleUrl(deps.basePath, `/keys/${key.id}/revoke`),
          csrf: csrfOf(ctx),
          confirmLabel: 'Revoke the key',
          cancelHref: consoleUrl(deps.basePath, '/keys'),
        }),
      });
    }
    const revoked = await revokeApiKey(deps.commands, { keyId: key.id, metadata: consoleMetadata(ctx) });
    // Already revoked (in another tab, by the platform): it is revoked all the same.
    if (E.isRight(revoked)) await afterChange(deps, revoked.right.position);
    redirectTo(ctx, deps, '/keys?done=revoked');
  });

  return router;
};
