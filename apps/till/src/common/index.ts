export { apiKeyFingerprint, forgetApiKey, readApiKey, saveApiKey } from './api-key-session.js';
export { callApi, problemText } from './api.js';
export type { ApiAnswer } from './api.js';
export { h, replaceChildren } from './dom.js';
export { formatMoney } from './money.js';
export { signOutButton, withApiKey } from './sign-in.js';
