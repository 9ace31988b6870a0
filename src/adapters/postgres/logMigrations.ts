import type { PostgresMigration } from './migratePostgres.js';

/** The component name of these steps in `schema_migrations` (the read models keep steps of their own). */
export const LOG_SCHEMA = 'log';

/** The channel on which every commit of appends tells the new head of the log (see `log_append`). */
export const LOG_CHANNEL = 'chronicle_log';

/**
 * The log: one row per event, and `log_head`, one row holding the last position
 * handed out. `log_append` locks that row first and keeps it locked until its
 * transaction commits, so appends commit one after the other, in the order of
 * their positions, and positions have no gaps: a reader that sees position n sees
 * every position before it (docs/contributors/decisions, "PostgreSQL log: one
 * writer at a time"). `data` and `metadata` are `json`, which keeps the text as it
 * was written.
 *
 * `log_append(batch, lock_timeout)` takes a batch of appends (a group commit): each
 * is a list of stream appends `{stream, expected, events: [{id, type, data,
 * metadata}]}` stored whole or not at all. Every check (expected revisions, event
 * ids) runs before anything of an append is written, so a refused append writes
 * nothing and needs no subtransaction. It answers one entry per append: the list
 * of `{revision, position}` per stream, or `{refused: 'revision', stream, actual}`,
 * or `{refused: 'duplicate', eventId}`.
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

    CREATE FUNCTION log_append(p_batch json, p_lock_timeout text) RETURNS json
    LANGUAGE plpgsql AS $$
    DECLARE
      v_head     bigint;
      v_first    bigint;
      v_at       timestamptz;
      v_group    json;
      v_append   json;
      v_expected text;
      v_holds    boolean;
      v_actual   integer;
      v_count    integer;
      v_problem  json;
      v_streams  json[];
      v_results  json[] := ARRAY[]::json[];
    BEGIN
      PERFORM set_config('lock_timeout', p_lock_timeout, true);
      SELECT position INTO STRICT v_head FROM log_head FOR UPDATE;
      v_first := v_head;
      -- Taken once the lock is held: the times follow the positions (on the database's clock).
      v_at := date_trunc('milliseconds', clock_timestamp());
      FOR v_group IN SELECT value FROM json_array_elements(p_batch) LOOP
        v_problem := NULL;
        FOR v_append IN SELECT value FROM json_array_elements(v_group) LOOP
          SELECT max(revision) INTO v_actual FROM log_events WHERE stream = v_append->>'stream';
          v_expected := v_append->>'expected';
          v_holds := CASE v_expected
              WHEN 'any' THEN true
              WHEN 'no_stream' THEN v_actual IS NULL
              WHEN 'stream_exists' THEN v_actual IS NOT NULL
              ELSE coalesce(v_actual = v_expected::integer, false)
            END;
          IF NOT v_holds THEN
            v_problem := json_build_object('refused', 'revision', 'stream', v_append->>'stream', 'actual', v_actual);
            EXIT;
          END IF;
        END LOOP;
        IF v_problem IS NULL THEN
          SELECT json_build_object('refused', 'duplicate', 'eventId', ids.id) INTO v_problem
          FROM (
            SELECT e.event->>'id' AS id, count(*) OVER (PARTITION BY e.event->>'id') AS times
            FROM json_array_elements(v_group) AS a(append), json_array_elements(a.append->'events') AS e(event)
          ) ids
          WHERE ids.times > 1 OR EXISTS (SELECT 1 FROM log_events l WHERE l.id = ids.id)
          LIMIT 1;
        END IF;
        IF v_problem IS NOT NULL THEN
          v_results := v_results || v_problem;
          CONTINUE;
        END IF;
        v_streams := ARRAY[]::json[];
        FOR v_append IN SELECT value FROM json_array_elements(v_group) LOOP
          SELECT coalesce(max(revision), -1) INTO v_actual FROM log_events WHERE stream = v_append->>'stream';
          INSERT INTO log_events (position, id, stream, revision, type, data, metadata, recorded_at)
          SELECT v_head + e.n, e.event->>'id', v_append->>'stream', v_actual + e.n, e.event->>'type', e.event->'data', e.event->'metadata', v_at
          FROM json_array_elements(v_append->'events') WITH ORDINALITY AS e(event, n);
          GET DIAGNOSTICS v_count = ROW_COUNT;
          v_head := v_head + v_count;
          v_streams := v_streams || json_build_object('revision', v_actual + v_count, 'position', v_head::text);
        END LOOP;
        v_results := v_results || array_to_json(v_streams);
      END LOOP;
      IF v_head > v_first THEN
        UPDATE log_head SET position = v_head;
        PERFORM pg_notify('${LOG_CHANNEL}', v_head::text);
      END IF;
      RETURN array_to_json(v_results);
    END
    $$;
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

/** Every step of the log's part of the schema, in order (see migratePostgres). */
export const logMigrations: readonly PostgresMigration[] = [log, smallStores, outbox];
