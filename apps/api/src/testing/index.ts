export { startTestApi } from './test-api.js';
export type { TestApi, TestTenant } from './test-api.js';
export { createHttp } from './http.js';
export type { Http, TextResponse } from './http.js';
export { rawRequest } from './raw-request.js';
export { startApiProcess } from './api-process.js';
export type { ApiProcess } from './api-process.js';
export { useApiProcesses } from './use-api-processes.js';
export type { ApiProcessOptions, ApiProcessesContext } from './use-api-processes.js';
export { useTestApi } from './use-test-api.js';
export type { TestApiContext } from './use-test-api.js';
export { shortGatewayTimings, useGatewayTestApi } from './use-gateway-test-api.js';
export type { GatewayTestApiContext } from './use-gateway-test-api.js';
export {
  cardPayment,
  cashPayment,
  expectCardCapturedOnce,
  expectConcurrentDuplicatesOnce,
  expectKeyReuseRefused,
  invoiceCalls,
} from './invoice-calls.js';
export type { InvoiceCalls } from './invoice-calls.js';
export {
  bundleWebApps,
  saveScreenshot,
  signIn,
  useBrowserTestApi,
  webAssetsDirectory,
} from './till-browser.js';
export type { BrowserTestApi } from './till-browser.js';
export { putDemoMenu, putMenuItems } from './menu-calls.js';
export type { MenuItemInput } from './menu-calls.js';
export { headerNamed, operationsOf } from './openapi-walk.js';
export type { OpenApi, OpenApiOperation, OpenApiResponse } from './openapi-walk.js';
