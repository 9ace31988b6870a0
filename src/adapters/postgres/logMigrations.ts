import type { PostgresMigration } from './migratePostgres.js';

/** The component name of these steps in `schema_migrations` (the read models keep steps of their own). */
export const LOG_SCHEMA = 'log';

/** The channel on which every commit of appends tells the new head of the log (see `log_append`). */
export const LOG_CHANNEL = 'chronicle_log';

/** `log_append`'s check of the ids already stored, as release 1 wrote it (see `storedIdsPlannedPerCall`). */
const STORED_IDS_CHECKED_WITH_A_CACHED_PLAN =
  '      SELECT coalesce(array_agg(l.id), ARRAY[]::text[]) INTO v_stored FROM log_events l WHERE l.id = ANY(p_ids);';

/** The fields of each stream append's answer, as release 1 wrote them (see `recordedTimeAnswered`). */
const RELEASE_1_OUTCOME = "'revision', v_base + p_counts[i], 'position', v_head::text";

/**
 * `log_append` (see the comment on `log` below), made by `create` (`CREATE FUNCTION`, or
 * `CREATE OR REPLACE FUNCTION` in a later step), with `storedIdsCheck` for the statement
 * that reads which of the batch's ids the log holds already into `v_stored` (and what else
 * runs once the head is locked), `outcome` for the fields of each stream append's answer,
 * and `declarations` for variables of a later step's own.
 */
/** What a later step adds to `log_append`'s text, at the places named; empty: the text as before. */
interface LogAppendExtension {
  /** The function's name (default `log_append`). */
  readonly name?: string;
  /** Parameters after `p_metadata`, each `,\n      <name> <type>`. */
  readonly parameters?: string;
  /** Statements in each append's check, after the duplicate ids' (they may set `v_problem`). */
  readonly perAppend?: string;
  /** Statements after the loop over the appends, before the events are inserted. */
  readonly afterLoop?: string;
}

const logAppend = (create: string, storedIdsCheck: string, outcome = RELEASE_1_OUTCOME, declarations = '', extension: LogAppendExtension = {}): string => `${create} ${extension.name ?? 'log_append'}(
      p_lock_timeout text,
      p_appends      integer[],
      p_streams      text[],
      p_expected     text[],
      p_counts       integer[],
      p_ids          text[],
      p_types        text[],
      p_data         text[],
      p_metadata     text[]${extension.parameters ?? ''}
    ) RETURNS json
    LANGUAGE plpgsql AS $$
    DECLARE
      v_stream_count integer := coalesce(array_length(p_streams, 1), 0);
      v_head         bigint;
      v_first        bigint;
      v_at           timestamptz;
      v_current      integer[];
      v_stored       text[];
      v_problem      json;
      v_outcome      json[];
      v_results      json[] := ARRAY[]::json[];
      v_positions    bigint[] := ARRAY[]::bigint[];
      v_revisions    integer[] := ARRAY[]::integer[];
      v_in_streams   text[] := ARRAY[]::text[];
      v_events       integer[] := ARRAY[]::integer[];
      v_start        integer := 1;
      v_end          integer;
      v_event        integer := 1;
      v_event_end    integer;
      v_holds        boolean;
      v_base         integer;
      i              integer;
      k              integer;
${declarations}    BEGIN
      PERFORM set_config('lock_timeout', p_lock_timeout, true);
      SELECT position INTO STRICT v_head FROM log_head FOR UPDATE;
      v_first := v_head;
      -- Taken once the lock is held: the times follow the positions (on the database's clock).
      v_at := date_trunc('milliseconds', clock_timestamp());
      SELECT array_agg((SELECT max(revision) FROM log_events l WHERE l.stream = s.stream) ORDER BY s.n)
        INTO v_current FROM unnest(p_streams) WITH ORDINALITY AS s(stream, n);
${storedIdsCheck}

      WHILE v_start <= v_stream_count LOOP
        -- One append: stream appends v_start .. v_end - 1, events v_event .. v_event_end - 1.
        v_end := v_start;
        v_event_end := v_event;
        v_problem := NULL;
        WHILE v_end <= v_stream_count AND p_appends[v_end] = p_appends[v_start] LOOP
          v_holds := CASE p_expected[v_end]
              WHEN 'any' THEN true
              WHEN 'no_stream' THEN v_current[v_end] IS NULL
              WHEN 'stream_exists' THEN v_current[v_end] IS NOT NULL
              ELSE coalesce(v_current[v_end] = p_expected[v_end]::integer, false)
            END;
          IF v_problem IS NULL AND NOT v_holds THEN
            v_problem := json_build_object('refused', 'revision', 'stream', p_streams[v_end], 'actual', v_current[v_end]);
          END IF;
          v_event_end := v_event_end + p_counts[v_end];
          v_end := v_end + 1;
        END LOOP;
        IF v_problem IS NULL AND cardinality(v_stored) > 0 THEN
          FOR k IN v_event .. v_event_end - 1 LOOP
            IF p_ids[k] = ANY(v_stored) THEN
              v_problem := json_build_object('refused', 'duplicate', 'eventId', p_ids[k]);
              EXIT;
            END IF;
          END LOOP;
        END IF;
${extension.perAppend ?? ''}        IF v_problem IS NOT NULL THEN
          v_results := v_results || v_problem;
        ELSE
          v_outcome := ARRAY[]::json[];
          k := v_event;
          FOR i IN v_start .. v_end - 1 LOOP
            v_base := coalesce(v_current[i], -1);
            FOR n IN 1 .. p_counts[i] LOOP
              v_head := v_head + 1;
              v_positions := v_positions || v_head;
              v_revisions := v_revisions || (v_base + n);
              v_in_streams := v_in_streams || p_streams[i];
              v_events := v_events || k;
              k := k + 1;
            END LOOP;
            v_outcome := v_outcome || json_build_object(${outcome});
          END LOOP;
          v_results := v_results || array_to_json(v_outcome);
        END IF;
        v_start := v_end;
        v_event := v_event_end;
      END LOOP;
${extension.afterLoop ?? ''}
      IF v_head > v_first THEN
        INSERT INTO log_events (position, id, stream, revision, type, data, metadata, recorded_at)
        SELECT e.position, p_ids[e.k], e.stream, e.revision, p_types[e.k], p_data[e.k]::json, p_metadata[e.k]::json, v_at
        FROM unnest(v_positions, v_events, v_in_streams, v_revisions) AS e(position, k, stream, revision);
        UPDATE log_head SET position = v_head;
        PERFORM pg_notify('${LOG_CHANNEL}', v_head::text);
      END IF;
      RETURN array_to_json(v_results);
    END
    $$;`;

/**
 * The log: one row per event, and `log_head`, one row holding the last position
 * handed out. `log_append` locks that row first and keeps it locked until its
 * transaction commits, so appends commit one after the other, in the order of
 * their positions, and positions have no gaps: a reader that sees position n sees
 * every position before it (see the decision record on the log's order). `data`
 * and `metadata` are `json`, which keeps the text as it was written.
 *
 * `log_append` stores a batch of appends (a group commit), each a list of stream
 * appends stored whole or not at all, given as parallel arrays: per stream append
 * the index of its append in the batch (1, 1, 2, 3…), its stream, its expected
 * revision (`any`, `no_stream`, `stream_exists` or a number) and how many events it
 * has; per event, in the same order, its id, type, data and metadata. No stream and
 * no event id may appear in two appends of one batch (the caller defers the later
 * one to the next batch), so each append is checked against the log as it was
 * before the batch. The checks read the log twice for the whole batch (the streams'
 * revisions, the ids already stored), decide in memory, and one INSERT writes every
 * accepted event: a refused append writes nothing and needs no subtransaction. It
 * answers one entry per append: `[{revision, position}]` per stream, or
 * `{refused: 'revision', stream, actual}`, or `{refused: 'duplicate', eventId}`.
 */
const log: PostgresMigration = {
  version: 1,
  name: 'the log: events, the head row that orders appends, log_append',
  sql: `
    CREATE TABLE log_head (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      position bigint  NOT NULL
    );
    INSERT INTO log_head (position) VALUES (0);

    CREATE TABLE log_events (
      position    bigint      PRIMARY KEY,
      id          text        NOT NULL UNIQUE,
      stream      text        NOT NULL,
      revision    integer     NOT NULL,
      type        text        NOT NULL,
      data        json        NOT NULL,
      metadata    json        NOT NULL,
      recorded_at timestamptz NOT NULL,
      UNIQUE (stream, revision)
    );

    ${logAppend('CREATE FUNCTION', STORED_IDS_CHECKED_WITH_A_CACHED_PLAN)}
  `,
};

/** Webhook secrets, idempotency keys, leases and rate-limit counters: each a table of its own. */
const smallStores: PostgresMigration = {
  version: 2,
  name: 'webhook secrets, idempotency keys, leases, rate-limit counters',
  sql: `
    CREATE TABLE webhook_secrets (
      subscription_id text PRIMARY KEY,
      secret          text NOT NULL
    );

    CREATE TABLE idempotency_keys (
      company_id  text        NOT NULL,
      key         text        NOT NULL,
      fingerprint text        NOT NULL,
      state       text        NOT NULL CHECK (state IN ('in_flight', 'completed')),
      token       text        NOT NULL,
      response    text,
      expires_at  timestamptz NOT NULL,
      PRIMARY KEY (company_id, key)
    );
    CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

    -- acquired_at and renewed_at as the holder wrote them; renewed_by_database on the database's clock.
    CREATE TABLE leases (
      name                text        PRIMARY KEY,
      owner               text        NOT NULL,
      role                text        NOT NULL,
      pid                 integer     NOT NULL,
      host                text        NOT NULL,
      scope               text,
      acquired_at         text        NOT NULL,
      renewed_at          text        NOT NULL,
      renewed_by_database timestamptz NOT NULL DEFAULT now()
    );

    -- rate-limiter-flexible's layout (key, points, expire in epoch ms), which its statements write by position.
    CREATE TABLE rate_limits (
      key    varchar(255) PRIMARY KEY,
      points integer      NOT NULL DEFAULT 0,
      expire bigint
    );
    CREATE INDEX rate_limits_expiry ON rate_limits (expire);
  `,
};

/**
 * The webhook outbox, the fan-out's view of the subscriptions and its checkpoints.
 * Positions are numeric(40): the outbox's port takes positions of any engine.
 * The counts by state are kept by statement triggers as rows of changes (one per
 * state a statement moved), which writers only ever insert, so that concurrent
 * writers never wait on a counter row; reading the counts folds them.
 */
const outbox: PostgresMigration = {
  version: 3,
  name: 'the webhook outbox, the fan-out subscriptions and checkpoints, counts by state',
  sql: `
    CREATE TABLE webhook_fan_out_checkpoints (
      name     text          PRIMARY KEY,
      position numeric(40,0) NOT NULL
    );

    CREATE TABLE webhook_fan_out_subscriptions (
      subscription_id text          PRIMARY KEY,
      company_id      text          NOT NULL,
      event           text          NOT NULL,
      target_url      text          NOT NULL,
      filters         json,
      subscribed_at   numeric(40,0) NOT NULL,
      unsubscribed_at numeric(40,0),
      stopped_at      timestamptz
    );

    CREATE TABLE webhook_outbox (
      subscription_id text          NOT NULL,
      event_id        text          NOT NULL,
      company_id      text          NOT NULL,
      position        numeric(40,0) NOT NULL,
      ordinal         integer       NOT NULL,
      event_type      text          NOT NULL,
      occurred_at     timestamptz   NOT NULL,
      envelope        text          NOT NULL,
      state           text          NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
      attempts        jsonb         NOT NULL DEFAULT '[]',
      round_attempts  integer       NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      completed_at    timestamptz,
      failure_reason  text,
      created_at      timestamptz   NOT NULL,
      PRIMARY KEY (subscription_id, event_id)
    );
    CREATE INDEX webhook_outbox_by_queue ON webhook_outbox (subscription_id, position, ordinal);
    CREATE INDEX webhook_outbox_pending ON webhook_outbox (subscription_id, position, ordinal) WHERE state = 'pending';
    CREATE INDEX webhook_outbox_completed ON webhook_outbox (completed_at) WHERE state <> 'pending';

    CREATE TABLE webhook_outbox_count_changes (
      state text   NOT NULL,
      delta bigint NOT NULL
    );
    CREATE FUNCTION webhook_outbox_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_outbox_count_changes (state, delta) SELECT state, count(*) FROM new_rows GROUP BY state;
      RETURN NULL;
    END
    $$;
    CREATE FUNCTION webhook_outbox_rows_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_outbox_count_changes (state, delta) SELECT state, -count(*) FROM old_rows GROUP BY state;
      RETURN NULL;
    END
    $$;
    CREATE FUNCTION webhook_outbox_rows_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_outbox_count_changes (state, delta)
      SELECT state, sum(delta) FROM (
        SELECT state, 1 AS delta FROM new_rows
        UNION ALL
        SELECT state, -1 AS delta FROM old_rows
      ) moved
      GROUP BY state
      HAVING sum(delta) <> 0;
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER webhook_outbox_counts_insert AFTER INSERT ON webhook_outbox
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_outbox_rows_inserted();
    CREATE TRIGGER webhook_outbox_counts_delete AFTER DELETE ON webhook_outbox
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_outbox_rows_deleted();
    CREATE TRIGGER webhook_outbox_counts_update AFTER UPDATE ON webhook_outbox
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_outbox_rows_updated();
  `,
};

/**
 * Fair, cheap picking of due work (the same step as the embedded log file's sixth):
 * each subscription keeps when its queue is next due (its head's next attempt, or
 * the end of a hold; NULL while it has nothing to send, or is disabled or ended),
 * so that the dispatcher reads the due subscriptions through one partial index
 * instead of looking for every queue's head among the pending rows; beside it, how
 * its receiver is doing (paused or disabled after failing, since when, how often
 * held, and a version every write of it moves). Every row is kept; the due times of
 * the queues pending now are set from their heads.
 *
 * Two functions move the due time, each under the subscription's row lock and each
 * of its statements on a snapshot taken after that lock was had (a volatile
 * function's statements each take their own at READ COMMITTED), so that a fan-out
 * adding rows and a dispatcher settling the same queue never both decide on what
 * the other has not committed yet: `webhook_queues_filled` makes the empty queues
 * among `p_ids` due (their new rows are behind no head), `webhook_queue_settle`
 * sets a queue's due time from its head and hold, writing only a changed value.
 */
const dueQueues: PostgresMigration = {
  version: 4,
  name: 'due times and receiver health on the fan-out subscriptions, the due index, fill and settle',
  sql: `
    ALTER TABLE webhook_fan_out_subscriptions
      ADD COLUMN delivery_status text        NOT NULL DEFAULT 'active' CHECK (delivery_status IN ('active', 'paused', 'disabled')),
      ADD COLUMN logged_status   text        NOT NULL DEFAULT 'active' CHECK (logged_status IN ('active', 'paused', 'disabled')),
      ADD COLUMN failing_since   timestamptz,
      ADD COLUMN pauses          integer     NOT NULL DEFAULT 0,
      ADD COLUMN hold_until      timestamptz,
      ADD COLUMN health_version  integer     NOT NULL DEFAULT 0,
      ADD COLUMN due_at          timestamptz;

    UPDATE webhook_fan_out_subscriptions s SET due_at = (
        SELECT o.next_attempt_at FROM webhook_outbox o
        WHERE o.subscription_id = s.subscription_id AND o.state = 'pending' ORDER BY o.position, o.ordinal LIMIT 1)
      WHERE s.unsubscribed_at IS NULL AND s.stopped_at IS NULL;

    CREATE INDEX webhook_fan_out_due ON webhook_fan_out_subscriptions (due_at) WHERE due_at IS NOT NULL;

    CREATE FUNCTION webhook_queues_filled(p_ids text[], p_now timestamptz) RETURNS void
    LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM webhook_fan_out_subscriptions WHERE subscription_id = ANY(p_ids) ORDER BY subscription_id FOR UPDATE;
      UPDATE webhook_fan_out_subscriptions SET due_at = greatest(p_now, hold_until)
      WHERE subscription_id = ANY(p_ids) AND due_at IS NULL AND delivery_status <> 'disabled'
        AND unsubscribed_at IS NULL AND stopped_at IS NULL;
    END
    $$;

    CREATE FUNCTION webhook_queue_settle(p_subscription_id text) RETURNS void
    LANGUAGE plpgsql AS $$
    DECLARE
      v_sub  webhook_fan_out_subscriptions%ROWTYPE;
      v_head timestamptz;
      v_due  timestamptz;
    BEGIN
      SELECT * INTO v_sub FROM webhook_fan_out_subscriptions WHERE subscription_id = p_subscription_id FOR UPDATE;
      IF NOT FOUND THEN
        RETURN;
      END IF;
      IF v_sub.unsubscribed_at IS NULL AND v_sub.stopped_at IS NULL AND v_sub.delivery_status <> 'disabled' THEN
        SELECT o.next_attempt_at INTO v_head FROM webhook_outbox o
        WHERE o.subscription_id = p_subscription_id AND o.state = 'pending' ORDER BY o.position, o.ordinal LIMIT 1;
        IF FOUND THEN
          v_due := greatest(v_head, v_sub.hold_until);
        END IF;
      END IF;
      IF v_due IS DISTINCT FROM v_sub.due_at THEN
        UPDATE webhook_fan_out_subscriptions SET due_at = v_due WHERE subscription_id = p_subscription_id;
      END IF;
    END
    $$;
  `,
};

/** `log_append`'s check of the ids already stored from step 5 on: planned for each call's ids. */
const STORED_IDS_PLANNED_PER_CALL =
  "      EXECUTE 'SELECT coalesce(array_agg(l.id), ARRAY[]::text[]) FROM log_events l WHERE l.id = ANY($1)' INTO v_stored USING p_ids;";

/**
 * `log_append` reads which of a batch's ids the log holds already with a plan made
 * for each call (`EXECUTE … USING`), on the log's size at that moment. The plan of
 * release 1's statement was cached by each connection from its sixth call on, and
 * one cached while the log was small (a new database, a restored one not analyzed
 * yet) scanned the whole log on every append until statistics came (measured: 0.66
 * ms of a call's 1.06 ms on a log of 9,000 events, a sequential scan).
 */
const storedIdsPlannedPerCall: PostgresMigration = {
  version: 5,
  name: 'log_append: the stored ids read with a plan made for each call',
  sql: `
    ${logAppend('CREATE OR REPLACE FUNCTION', STORED_IDS_PLANNED_PER_CALL)}
  `,
};

/**
 * `log_append` answers, with each stream append's revision and position, the time the
 * events were recorded at (`at`: milliseconds since the epoch, the `recorded_at` of every
 * event of the call) and the id of the event the call's first one follows (`before`: the
 * log's head before the call, null on an empty log), so that the process that appended
 * can hand its own events to its subscriptions without reading them back, knowing they
 * follow what it holds. Processes of the release before read the answer as they did:
 * they take the fields they know.
 */
const recordedTimeAnswered: PostgresMigration = {
  version: 6,
  name: 'log_append: each answer with the time its events were recorded at and the id they follow',
  sql: `
    ${logAppend(
      'CREATE OR REPLACE FUNCTION',
      `${STORED_IDS_PLANNED_PER_CALL}\n      SELECT id INTO v_before FROM log_events WHERE position = v_first;`,
      `${RELEASE_1_OUTCOME}, 'at', (extract(epoch FROM v_at) * 1000)::bigint, 'before', v_before`,
      '      v_before       text;\n',
    )}
  `,
};

/**
 * The data keys of the subjects whose personal fields are kept encrypted (the same
 * table as the embedded log file's eighth step): a key per subject, or, once the
 * subject was erased, no key and the time it was erased, never both.
 */
const subjectKeys: PostgresMigration = {
  version: 7,
  name: 'subject keys: a data key per subject, or the time it was erased',
  sql: `
    CREATE TABLE subject_keys (
      subject   text        PRIMARY KEY,
      key       text,
      erased_at timestamptz,
      CHECK ((key IS NULL) = (erased_at IS NOT NULL))
    );
  `,
};

/**
 * `log_append_keyed`: `log_append` (as step 6 left it) that also keeps new subjects'
 * keys in the same transaction, so that a new person's key costs no round trip of its
 * own and is never kept without the events sealed with it. Three more parallel arrays
 * give, per key, the index of its append in the batch, its subject and its text (no
 * subject in two appends of one batch: the caller defers the later one). Once the
 * head is locked, every key is inserted unless its subject has a row already (a key,
 * or an erasure); an append with a key that was not inserted is refused,
 * `{refused: 'key', subject, erased}`, and the keys kept for a refused append (for
 * any reason) are deleted again before the commit. `log_append` stays as it was for
 * processes of the release before.
 */
const keyedAppend: PostgresMigration = {
  version: 8,
  name: 'log_append_keyed: appends that keep their new subjects\' keys in the same transaction',
  sql: `
    ${logAppend(
      'CREATE FUNCTION',
      `${STORED_IDS_PLANNED_PER_CALL}
      SELECT id INTO v_before FROM log_events WHERE position = v_first;
      WITH kept AS (
        INSERT INTO subject_keys (subject, key)
        SELECT u.subject, u.key FROM unnest(p_key_subjects, p_key_texts) AS u(subject, key)
        ON CONFLICT (subject) DO NOTHING
        RETURNING subject
      )
      SELECT coalesce(array_agg(subject), ARRAY[]::text[]) INTO v_kept FROM kept;`,
      `${RELEASE_1_OUTCOME}, 'at', (extract(epoch FROM v_at) * 1000)::bigint, 'before', v_before`,
      '      v_before       text;\n      v_kept         text[];\n      v_subject      text;\n      v_refused      integer[] := ARRAY[]::integer[];\n',
      {
        name: 'log_append_keyed',
        parameters: ',\n      p_key_appends  integer[],\n      p_key_subjects text[],\n      p_key_texts    text[]',
        perAppend: `        IF v_problem IS NULL THEN
          SELECT u.subject INTO v_subject FROM unnest(p_key_appends, p_key_subjects) AS u(append, subject)
            WHERE u.append = p_appends[v_start] AND NOT (u.subject = ANY(v_kept)) LIMIT 1;
          IF v_subject IS NOT NULL THEN
            v_problem := json_build_object('refused', 'key', 'subject', v_subject,
              'erased', EXISTS (SELECT 1 FROM subject_keys k WHERE k.subject = v_subject AND k.key IS NULL));
          END IF;
        END IF;
        IF v_problem IS NOT NULL THEN
          v_refused := v_refused || p_appends[v_start];
        END IF;
`,
        afterLoop: `      IF cardinality(v_refused) > 0 THEN
        DELETE FROM subject_keys WHERE subject IN (
          SELECT u.subject FROM unnest(p_key_appends, p_key_subjects) AS u(append, subject)
          WHERE u.append = ANY(v_refused) AND u.subject = ANY(v_kept));
      END IF;
`,
      },
    )}
  `,
};

/**
 * The log's in-place rewrites (`PostgresEventStore.renameStreams`, `rewriteEventData`), each
 * by name: how far it went, how many it changed, when it was done; found by a start in one read.
 */
const logRewrites: PostgresMigration = {
  version: 9,
  name: 'log_rewrites: the in-place rewrites of the log, their progress',
  sql: `
    CREATE TABLE log_rewrites (
      name     text        PRIMARY KEY,
      position bigint,
      changed  integer     NOT NULL DEFAULT 0,
      done_at  timestamptz
    );
  `,
};

/**
 * The fan-out's checkpoint keeps the id of the event at its position, so that a start checks
 * the log against it exactly (a position alone cannot tell a log that lost commits in a
 * failover and handed their positions to other events).
 */
const fanOutCheckpointEventIds: PostgresMigration = {
  version: 10,
  name: 'webhook_fan_out_checkpoints.event_id: the id of the event at the checkpoint',
  sql: `
    ALTER TABLE webhook_fan_out_checkpoints ADD COLUMN event_id text;
  `,
};

/** Every step of the log's part of the schema, in order (see migratePostgres). */
export const logMigrations: readonly PostgresMigration[] = [
  log,
  smallStores,
  outbox,
  dueQueues,
  storedIdsPlannedPerCall,
  recordedTimeAnswered,
  subjectKeys,
  keyedAppend,
  logRewrites,
  fanOutCheckpointEventIds,
];
