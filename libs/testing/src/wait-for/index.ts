export { waitFor } from './wait-for.js';
