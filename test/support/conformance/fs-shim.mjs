export * from 'node:fs';
export { default } from 'node:fs';
export function globSync() {
  throw new Error('fs.globSync needs Node 22');
}
