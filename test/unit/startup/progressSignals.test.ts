import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  LOG_APPENDED,
  READ_MODELS_APPLIED,
  exchangeProgressSignals,
  relayProgressSignal,
  type RelayTarget,
} from '../../../src/startup/progressSignals.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { withUpcasting } from '../../../src/application/versioning/UpcastingEventStore.js';
import type { IpcEndpoint } from '../../../src/shared/IpcEndpoint.js';
import { ipcPair } from '../../support/ipcPair.js';
import { tempDir } from '../../support/tempStore.js';
import { STORED_EVENT_TYPES } from '../../../src/features/index.js';

/** One end that records what is sent to it; `connected` as given. */
const recorder = (connected = true): IpcEndpoint & { sent: unknown[] } => {
  const emitter = new EventEmitter() as IpcEndpoint & EventEmitter & { sent: unknown[] };
  emitter.sent = [];
  Object.defineProperty(emitter, 'connected', { value: connected });
  emitter.send = (message: unknown) => {
    emitter.sent.push(message);
    return true;
  };
  return emitter;
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('progress signals between API_WORKERS’ processes', () => {
  describe('the supervisor’s relay', () => {
    it('sends an API worker’s append to the background process only, the projector’s batch to every API worker', () => {
      const background = recorder();
      const api1 = recorder();
      const api2 = recorder();
      const processes: RelayTarget[] = [
        { role: 'background', endpoint: background },
        { role: 'api', endpoint: api1 },
        { role: 'api', endpoint: api2 },
      ];
      expect(relayProgressSignal({ type: LOG_APPENDED }, 'api', processes)).to.equal(true);
      expect(background.sent).to.deep.equal([{ type: LOG_APPENDED }]);
      expect(api1.sent).to.deep.equal([]);
      expect(api2.sent).to.deep.equal([]);

      expect(relayProgressSignal({ type: READ_MODELS_APPLIED }, 'background', processes)).to.equal(true);
      expect(api1.sent).to.deep.equal([{ type: READ_MODELS_APPLIED }]);
      expect(api2.sent).to.deep.equal([{ type: READ_MODELS_APPLIED }]);
      expect(background.sent).to.have.length(1);
    });

    it('leaves other messages, and signals from the wrong side, alone', () => {
      const background = recorder();
      const api = recorder();
      const processes: RelayTarget[] = [
        { role: 'background', endpoint: background },
        { role: 'api', endpoint: api },
      ];
      for (const [message, from] of [
        [{ type: 'chronicle:ready', port: 1 }, 'api'],
        [{ type: 'chronicle:rate-limits', id: 1 }, 'api'],
        [null, 'api'],
        ['chronicle:log-appended', 'api'],
        [{ type: READ_MODELS_APPLIED }, 'api'],
        [{ type: LOG_APPENDED }, 'background'],
      ] as const) {
        expect(relayProgressSignal(message, from, processes)).to.equal(false);
      }
      expect(background.sent).to.deep.equal([]);
      expect(api.sent).to.deep.equal([]);
    });

    it('skips a process whose channel is closed, and one whose send throws, and still tells the others', () => {
      const gone = recorder(false);
      const throwing = recorder();
      throwing.send = () => {
        throw new Error('channel closed');
      };
      const live = recorder();
      const processes: RelayTarget[] = [
        { role: 'api', endpoint: gone },
        { role: 'api', endpoint: throwing },
        { role: 'api', endpoint: live },
      ];
      expect(relayProgressSignal({ type: READ_MODELS_APPLIED }, 'background', processes)).to.equal(true);
      expect(gone.sent).to.deep.equal([]);
      expect(live.sent).to.deep.equal([{ type: READ_MODELS_APPLIED }]);
    });
  });

  describe('a supervised process', () => {
    it('tells its supervisor of each commit and each applied batch, and acts on relayed signals', async () => {
      const { worker, supervisor } = ipcPair();
      const received: unknown[] = [];
      supervisor.on('message', (message) => received.push(message));
      let commit: () => void = () => undefined;
      let applied: () => void = () => undefined;
      const looked: string[] = [];
      const counted: string[] = [];
      const stop = exchangeProgressSignals(worker, {
        count: (signal, direction) => counted.push(`${signal} ${direction}`),
        onAppended: (listener) => ((commit = listener), () => (commit = () => undefined)),
        onApplied: (listener) => ((applied = listener), () => (applied = () => undefined)),
        lookAtLog: () => looked.push('log'),
        lookAtCheckpoint: () => looked.push('checkpoint'),
      });
      commit();
      applied();
      supervisor.send({ type: LOG_APPENDED });
      supervisor.send({ type: READ_MODELS_APPLIED });
      supervisor.send({ type: 'chronicle:metrics', id: 1 });
      await settle();
      expect(received).to.deep.equal([{ type: LOG_APPENDED }, { type: READ_MODELS_APPLIED }]);
      expect(looked).to.deep.equal(['log', 'checkpoint']);
      expect(counted).to.deep.equal(['log-appended sent', 'read-models-applied sent', 'log-appended received', 'read-models-applied received']);

      stop();
      commit();
      applied();
      supervisor.send({ type: LOG_APPENDED });
      await settle();
      expect(received).to.have.length(2);
      expect(looked).to.have.length(2);
    });

    it('never throws when its channel is closed (the supervisor is gone)', () => {
      const { worker, cut } = ipcPair();
      let commit: () => void = () => undefined;
      const counted: string[] = [];
      exchangeProgressSignals(worker, {
        onAppended: (listener) => ((commit = listener), () => undefined),
        count: (signal, direction) => counted.push(`${signal} ${direction}`),
      });
      cut();
      expect(() => commit()).not.to.throw();
      // Not sent: not counted.
      expect(counted).to.deep.equal([]);
    });

    it('end to end on SQLite: an API worker’s append reaches a projector’s subscription polling a minute apart', async () => {
      const dir = tempDir();
      const file = join(dir.path, 'events.sqlite');
      // The event store as the composition root wraps it (versions, upcasting): the hooks pass through.
      const apiStore = withUpcasting(SqliteEventStore.open(file), STORED_EVENT_TYPES);
      const projectorStore = withUpcasting(SqliteEventStore.open(file, { pollIntervalMs: 60_000 }), STORED_EVENT_TYPES);
      const api = ipcPair();
      const background = ipcPair();
      // The supervisor's side of each channel relays, as superviseWorkers does.
      const processes: RelayTarget[] = [
        { role: 'api', endpoint: api.supervisor },
        { role: 'background', endpoint: background.supervisor },
      ];
      api.supervisor.on('message', (message) => relayProgressSignal(message, 'api', processes));
      background.supervisor.on('message', (message) => relayProgressSignal(message, 'background', processes));
      const stopApi = exchangeProgressSignals(api.worker, { onAppended: apiStore.onAppended! });
      const stopBackground = exchangeProgressSignals(background.worker, { lookAtLog: projectorStore.lookNow! });
      let arrived: (position: string) => void = () => undefined;
      const subscription = projectorStore.subscribeToAll({
        after: null,
        handle: async (batch) => batch.forEach((event) => arrived(event.position)),
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const seen = new Promise<string>((resolve) => (arrived = resolve));
        const { position } = await apiStore.append('s', [{ id: randomUUID(), type: 'Pinged', data: {}, metadata: { source: 'system', correlationId: 'c' } }], 'no_stream');
        expect(await seen).to.equal(position);
      } finally {
        stopApi();
        stopBackground();
        await subscription.stop();
        await apiStore.close();
        await projectorStore.close();
        dir.dispose();
      }
    });
  });
});
