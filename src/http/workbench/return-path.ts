/** The longest return path kept; a longer one is no page of ours worth going back to. */
const MAX_RETURN_PATH = 2048;

/**
 * A page of the workbench to go back to (after switching the language or signing in), as given in a query or a
 * form: only a path under /audit on this server, so a link cannot send anyone elsewhere, of printable ASCII without
 * `\` (what a browser sends is percent-encoded), so it is a valid `Location` and a bounded line in any log;
 * `fallback` for anything else.
 */
export function returnPath(text: string | undefined, fallback: string): string {
  return text !== undefined && text.length <= MAX_RETURN_PATH && /^\/audit(?:[/?#]|$)/.test(text) && /^[\x21-\x5b\x5d-\x7e]*$/.test(text) ? text : fallback;
}
