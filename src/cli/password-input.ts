import { AppError } from "../lib/errors";
import { invocation, shellWord } from "./hints";

/**
 * The whole of stdin as a password: one trailing newline (`\n` or `\r\n`, as `echo` and
 * `printf '%s\n'` leave it) is not part of it; anything else is, spaces included.
 */
export async function passwordFromStdin(): Promise<string> {
  const text = await Bun.stdin.text();
  return text.replace(/\r?\n$/, "");
}

/** Whether a person can be asked: stdin is a terminal. */
export const canPrompt = () => process.stdin.isTTY === true;

/**
 * Asks on the terminal without echoing what is typed (the question goes to stderr: stdout may be
 * JSON). Enter ends the answer, Backspace takes back a character, Ctrl-C or Ctrl-D cancels.
 */
export function askHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let chars: string[] = [];
    const finish = () => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return (finish(), resolve(chars.join("")));
        if (ch === "\u0003" || ch === "\u0004")
          return (finish(), reject(new AppError("INVALID_PARAMETER", "cancelled; nothing was changed")));
        if (ch === "\u007f" || ch === "\b") chars = chars.slice(0, -1);
        else if (ch >= " ") chars.push(ch);
      }
    };
    stdin.on("data", onData);
  });
}

/** Asks for a new password twice, without echo; refuses when the two differ. Empty when the person just pressed Enter. */
export async function askNewPassword(first = "New password: "): Promise<string> {
  const password = await askHidden(first);
  if (password === "") return "";
  if ((await askHidden("Again, to confirm: ")) !== password)
    throw new AppError("INVALID_PARAMETER", "the two passwords differ; nothing was changed");
  return password;
}

/** The line that sets a password for `email`, as the operator would type it. */
export const setPasswordHint = (email: string) => `${invocation()} owners set-password ${shellWord(email)}`;
