// Runs dynalite (DynamoDB on LevelDB) in a worker thread so the API server and the database use separate cores.
import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import { withTransactions } from './dynalite-transactions.mjs';

const server = withTransactions(() =>
  dynalite({ path: workerData.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }),
);
server.listen(workerData.port, '127.0.0.1', () => {
  parentPort.postMessage({ port: server.address().port, threadId: osThreadId() });
});
parentPort.on('message', (msg) => {
  if (msg === 'close') server.close(() => parentPort.postMessage('closed'));
});

/** This thread's id in the OS (Linux: /proc/thread-self -> <pid>/task/<tid>), so benchmarks can bill its CPU. */
function osThreadId() {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop()) || undefined;
  } catch {
    return undefined;
  }
}
