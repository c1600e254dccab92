// Mermaid parses each diagram given on stdin (separated by NUL bytes); prints one line per
// diagram, `ok` or its error. jsdom stands in for the browser Mermaid expects.
import { JSDOM } from 'jsdom';
const dom = new JSDOM('<!DOCTYPE html><body></body>');
globalThis.window = dom.window; globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });
let input = '';
for await (const chunk of process.stdin) input += chunk;
for (const diagram of input.split('\0').filter((d) => d.trim())) {
  try { await mermaid.parse(diagram); console.log('ok'); }
  catch (e) { console.log('error: ' + String(e.message || e).split('\n').join(' ')); }
}
