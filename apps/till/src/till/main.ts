import { withApiKey } from '../common/index.js';
import { startTill } from './till-app.js';
import { renderTill } from './till-view.js';

const root = document.querySelector('#app');
if (root) {
  withApiKey(root, 'Once till', (apiKey) => {
    void startTill(apiKey).then((till) => {
      let drawing = Promise.resolve();
      const draw = () => {
        drawing = drawing.then(() => renderTill(root, till));
      };
      till.subscribe(draw);
      draw();
      document.body.dataset['ready'] = 'true';
    });
  });
}
