import { withApiKey } from '../common/index.js';
import { lookUp, readOverview } from './console-api.js';
import { drawConsole } from './console-view.js';

const refreshIntervalMs = 3_000;
const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

const root = document.querySelector('#app');
if (root) {
  withApiKey(root, 'Once console', (apiKey) => {
    const view = drawConsole(root, (text) => {
      void lookUp(apiKey, text).then(
        (keys) => view.showKeys(text, keys),
        (error: unknown) => view.showKeys(text, asError(error)),
      );
    });
    const refresh = () =>
      readOverview(apiKey).then(
        (overview) => view.showOverview(overview),
        (error: unknown) => view.showOverview(asError(error)),
      );
    void refresh().then(() => (document.body.dataset['ready'] = 'true'));
    setInterval(() => void refresh(), refreshIntervalMs);
  });
}
