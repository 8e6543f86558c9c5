// Kept for existing scripts: the same as `once-keys create …` (see once-keys.ts).
process.argv.splice(2, 0, 'create');
await import('./once-keys.js');
