/**
 * A page of the workbench to go back to (after switching the language or signing in), as given in a query: only
 * a path under /audit on this server, so a link cannot send anyone elsewhere; `fallback` for anything else.
 */
export function returnPath(text: string | undefined, fallback: string): string {
  return text !== undefined && /^\/audit(?:[/?#]|$)/.test(text) && !/[\\\r\n]/.test(text) ? text : fallback;
}
