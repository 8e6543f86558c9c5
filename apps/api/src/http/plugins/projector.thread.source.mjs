// Starts projector.thread.ts from the sources (`npm start`, the tests): a worker thread does not inherit the tsx
// loader of the thread that starts it, so it registers one of its own first.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.thread);
