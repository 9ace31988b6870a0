import { EventEmitter } from 'node:events';
import type { IpcEndpoint } from '../../src/shared/IpcEndpoint.js';

/**
 * Two ends of an in-process channel behaving as Node's IPC does: messages
 * serialized, delivered later and in order. `cut()` closes it: sends then throw.
 */
export const ipcPair = (): { worker: IpcEndpoint; supervisor: IpcEndpoint; cut: () => void } => {
  let open = true;
  const end = (to: () => EventEmitter): IpcEndpoint & EventEmitter => {
    const emitter = new EventEmitter() as IpcEndpoint & EventEmitter;
    emitter.send = (message: unknown) => {
      if (!open) throw new Error('channel closed');
      const copy = JSON.parse(JSON.stringify(message)) as unknown;
      setImmediate(() => to().emit('message', copy));
      return true;
    };
    return emitter;
  };
  const worker: IpcEndpoint & EventEmitter = end(() => supervisor);
  const supervisor: IpcEndpoint & EventEmitter = end(() => worker);
  return { worker, supervisor, cut: () => (open = false) };
};
