export { registerBackgroundWorkMetrics } from './background-work-metrics.js';
export type { BackgroundWorkMetrics } from './background-work-metrics.js';
export { metricsListenerPaths, serveMetrics } from './metrics-listener.js';
export type { MetricsListener } from './metrics-listener.js';
export { registerWebhookDeliveryMetrics } from './webhook-delivery-metrics.js';
