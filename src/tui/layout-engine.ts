/**
 * Resolves once Ink's layout engine (yoga, compiled to WebAssembly) is loaded. Loaded as ES modules, Ink's import
 * already waited for it (yoga-layout loads with a top-level await); the TUI's CommonJS bundle, which has no top-level
 * await, swaps this module for one that waits for the bundle's own load of yoga (scripts/bundle-tui.mjs).
 */
export function layoutEngineLoaded(): Promise<void> {
  return Promise.resolve();
}
