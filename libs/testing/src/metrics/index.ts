export { prometheusNamingProblems } from './prometheus-naming.js';
