// Anything shaped like an address: a run without spaces, brackets or quotes on each side of an @
// (or an address literal, `[192.0.2.1]`, after it). Broader than a valid address on purpose: a
// server quotes what it was sent, valid or not.
const ADDRESS = /[^\s<>()[\]{}"'`,;:@]+@(?:\[[^\]\s]*\]|[^\s<>()[\]{}"'`,;:@]+)/g;

/** The text with every address in it replaced by `[address]`: what a log line may carry of a server's reply. */
export function redactAddresses(text: string): string {
  return text.includes("@") ? text.replace(ADDRESS, "[address]") : text;
}
