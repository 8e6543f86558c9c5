export { pick, randomInt, seededRandom } from './seeded-random.js';
export type { Random } from './seeded-random.js';
