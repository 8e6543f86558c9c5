export { onceEnvironment } from './once-environment.js';
export type { OnceEnvironment } from './once-environment.js';
export { readEnvironment, RenamedSettingError } from './read-environment.js';
export { renamedSettings, renamedSettingsIn } from './renamed-settings.js';
