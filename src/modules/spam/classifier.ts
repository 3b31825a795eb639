/**
 * An owner's learned counts: how many messages of each label, and per hashed token how many of each
 * held it, packed in one number (`packCounts`): a trained owner's model holds hundreds of thousands
 * of tokens, and a Map of numbers keeps no object per token.
 */
export interface Counts {
  spam: number;
  ham: number;
  tokens: Map<number, number>;
}

const SPAM_UNIT = 2 ** 26;

/** A token's spam and ham counts as one number (each below 2^26). */
export const packCounts = (spam: number, ham: number) => spam * SPAM_UNIT + ham;

/** Adds `by` (1, or -1 to take a lesson back, never below 0) to a token's count of `label`. */
export function countToken(tokens: Map<number, number>, token: number, label: "spam" | "ham", by: 1 | -1): void {
  const packed = tokens.get(token) ?? 0;
  const spam = Math.floor(packed / SPAM_UNIT);
  const ham = packed - spam * SPAM_UNIT;
  if (label === "spam") tokens.set(token, packCounts(Math.max(spam + by, 0), ham));
  else tokens.set(token, packCounts(spam, Math.max(ham + by, 0)));
}

// SpamBayes' defaults (classifier.py): the strength of the prior belief of 0.5 for a rare token,
// and how far from 0.5 a token must be to count as a clue.
const UNKNOWN_WORD_STRENGTH = 0.45;
const UNKNOWN_WORD_PROB = 0.5;
const MIN_PROB_STRENGTH = 0.1;
// At most this many clues per message (SpamBayes: 150). A word and the pairs it is part of are clues
// of one thing, and a long newsletter gives hundreds of them: chi-squared over all of them made
// confident mistakes on good newsletters. With word pairs, 50 filed 0.9 % of good mail as spam
// where 150 filed 1.3 % (bench/spam-filter.ts --tune, mean of four splits).
const MAX_DISCRIMINATORS = 50;

/** The probability that chi-squared with `v` (even) degrees of freedom is at least `x2`. */
function chi2Q(x2: number, v: number): number {
  const m = x2 / 2;
  let term = Math.exp(-m);
  let sum = term;
  for (let i = 1; i < v / 2; i++) {
    term *= m / i;
    sum += term;
  }
  return Math.min(sum, 1);
}

/** A token's spam probability, Robinson's way: the counts' ratio pulled toward 0.5 while they are few. */
function tokenProb(packed: number, nspam: number, nham: number): number {
  const spam = Math.floor(packed / SPAM_UNIT);
  const ham = packed - spam * SPAM_UNIT;
  const spamRatio = spam / Math.max(nspam, 1);
  const hamRatio = ham / Math.max(nham, 1);
  const prob = spamRatio + hamRatio === 0 ? UNKNOWN_WORD_PROB : spamRatio / (spamRatio + hamRatio);
  const n = spam + ham;
  return (UNKNOWN_WORD_STRENGTH * UNKNOWN_WORD_PROB + n * prob) / (UNKNOWN_WORD_STRENGTH + n);
}

/**
 * A message's spam score from 0 to 1 by Robinson–Fisher chi-squared combining, as SpamBayes and
 * Bogofilter do it: the strongest clues (tokens far from 0.5) are combined into a spam and a ham
 * indication, each Fisher's test of the hypothesis that the clues are random; the score is their
 * balance, 0.5 when the model knows nothing or the clues disagree.
 */
export function score(model: Counts, tokens: number[]): number {
  const clues: number[] = [];
  for (const t of tokens) {
    const c = model.tokens.get(t);
    if (c === undefined) continue;
    const p = tokenProb(c, model.spam, model.ham);
    if (Math.abs(p - 0.5) >= MIN_PROB_STRENGTH) clues.push(p);
  }
  if (clues.length === 0) return 0.5;
  if (clues.length > MAX_DISCRIMINATORS) {
    clues.sort((a, b) => Math.abs(b - 0.5) - Math.abs(a - 0.5));
    clues.length = MAX_DISCRIMINATORS;
  }
  let logHam = 0;
  let logSpam = 0;
  for (const p of clues) {
    logHam += Math.log(p);
    logSpam += Math.log(1 - p);
  }
  const n = clues.length;
  const s = 1 - chi2Q(-2 * logSpam, 2 * n);
  const h = 1 - chi2Q(-2 * logHam, 2 * n);
  return Math.round(((s - h + 1) / 2) * 10_000) / 10_000;
}
