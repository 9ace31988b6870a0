// The webhook delivery thread, except that it dies (exit code 3) on a turn whose first row's
// event id is `crash`: how a test sees what a crash inside the thread does.
import { parentPort } from 'node:worker_threads';
import '../../src/webhooks/deliveryThreadMain.js';
import type { ToDeliveryThread } from '../../src/webhooks/deliveryThread.js';

parentPort?.on('message', (message: ToDeliveryThread) => {
  if (message.type === 'turn' && message.rows[0]?.eventId === 'crash') process.exit(3);
});
