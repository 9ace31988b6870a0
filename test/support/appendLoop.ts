// Child process for the durability tests: appends from many concurrent writers and
// prints each acknowledged event id on its own line, until killed.
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';

const [file, mode = 'loop'] = process.argv.slice(2);
if (!file) throw new Error('usage: appendLoop <sqlite file> [loop|once]');
const store = SqliteEventStore.open(file);

const appendOne = async (stream: string): Promise<void> => {
  const id = randomUUID();
  await store.append(stream, [{ id, type: 'Appended', data: { pid: process.pid }, metadata: { source: 'cli', correlationId: id } }], 'any');
  process.stdout.write(`${id}\n`);
};

if (mode === 'once') {
  await appendOne(`once-${randomUUID()}`);
  await store.close();
} else {
  const writer = async (n: number): Promise<never> => {
    for (;;) await appendOne(`writer-${n}`);
  };
  await Promise.all(Array.from({ length: 50 }, (_, n) => writer(n)));
}
