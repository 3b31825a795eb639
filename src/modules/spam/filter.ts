import { createHash } from "node:crypto";
import type { ChangeFeed } from "../../db/change-feed";
import type { Atomically } from "../../db/sql";
import { addressBucket } from "../../lib/address-bucket";
import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import { isOperator, requireOwnerScope, type Actor } from "../../lib/principal";
import { authorize, personalTeamId } from "../../lib/rights";
import type { AuditService } from "../audit/service";
import type { Form } from "../forms/model";
import type { OwnersService } from "../owners/service";
import type { AfterCommit, SubmitCheck, Verdict } from "../submissions/pipeline";
import type { StoredSubmission, SubmissionStatus } from "../submissions/model";
import { countToken, packCounts, score, type Counts } from "./classifier";
import { FILING_AFTER, visitorDigestOf, type FilterRepo, type FilterRow, type Label } from "./filter-repo";
import { honeypotCaught } from "./honeypot";
import type { FilterStatusJson } from "./model";
import { ruleReasons } from "./rules";
import { tokenHasher, tokenize } from "./tokens";

/** An owner's model as this process holds it; `fresh` until another process may have committed. */
interface Model extends Counts {
  version: number;
  fresh: boolean;
}

// Owners whose models are held at once, and their tokens together (about 50 bytes each); past either
// the cache starts again (each model reloads on its owner's next submission).
const CACHE_LIMIT = 1000;
const CACHE_TOKENS = 1_000_000;

export interface FilterDeps {
  repo: FilterRepo;
  /** Commits by other processes (the CLI's `spam reset`, another instance's lessons): models are checked against their version then. */
  changes: ChangeFeed;
  clock: Clock;
  owners: OwnersService;
  /** The key of the token hashes (derived from the database's challenge secret). */
  secret: string;
  /** A reset and its audit line commit together. */
  atomically: Atomically;
  audit: AuditService;
}

/**
 * The learning spam filter: per owner a Robinson–Fisher model over hashed tokens (classifier.ts),
 * taught by the owner's marks alone, and the spam rules of each form (rules.ts). Its
 * submit check scores every submission and files it as spam when a rule fires or, once the owner's
 * filter has learned from 20 of each, at the form's threshold. Each owner's model is held in memory:
 * this process's own lessons update it in place; after another process's commit (the change feed)
 * its version row is read once, and the model loaded again only when it moved.
 */
export function createSpamFilter({ repo, changes, clock, owners, secret, atomically, audit }: FilterDeps) {
  const hash = tokenHasher(secret);
  const models = new Map<string, Model>();
  const loading = new Map<string, Promise<Model>>();
  // Moved on by every change to a model here: a load that began before one is not kept.
  let epoch = 0;
  changes.onChange(() => {
    for (const m of models.values()) m.fresh = false;
  }, ["spam"]);

  const load = (ownerId: string): Promise<Model> => {
    const inFlight = loading.get(ownerId);
    if (inFlight) return inFlight;
    const seen = epoch;
    const read = (async () => {
      const row = await repo.findFilter(ownerId);
      const held = models.get(ownerId);
      if (held && held.version === (row?.version ?? 0)) {
        held.fresh = true;
        return held;
      }
      const model: Model = {
        spam: row?.spam ?? 0,
        ham: row?.ham ?? 0,
        version: row?.version ?? 0,
        fresh: true,
        tokens: new Map(),
      };
      if (row) for (const t of await repo.listTokens(ownerId)) model.tokens.set(t.token, packCounts(t.spam, t.ham));
      if (seen === epoch) {
        let held = model.tokens.size;
        for (const m of models.values()) held += m.tokens.size;
        if (models.size >= CACHE_LIMIT || held > CACHE_TOKENS) models.clear();
        models.set(ownerId, model);
      }
      return model;
    })().finally(() => loading.delete(ownerId));
    loading.set(ownerId, read);
    return read;
  };

  /** A committed lesson, applied to the model held here when it is the version just before; else the model is dropped. */
  const applied = (ownerId: string, row: FilterRow, label: Label, tokens: number[], undo: Lesson | null) => {
    epoch += 1;
    const m = models.get(ownerId);
    if (!m || m.version !== row.version - 1) return void models.delete(ownerId);
    if (undo) for (const t of undo.tokens) countToken(m.tokens, t, undo.label, -1);
    for (const t of tokens) countToken(m.tokens, t, label, 1);
    m.spam = row.spam;
    m.ham = row.ham;
    m.version = row.version;
  };

  /** Records a lesson in the caller's transaction; returns what applies it here once that has committed. */
  async function learn(ownerId: string, submissionId: string, label: Label, tokens: number[]): Promise<() => void> {
    const prior = await repo.findLesson(submissionId);
    if (prior?.label === label) return () => {};
    const undo = prior;
    const row = await repo.learn(ownerId, submissionId, label, tokens, undo, isoTime(clock.now()));
    return () => applied(ownerId, row, label, tokens, undo);
  }

  /** The duplicate rule's key: the visitor's address (its /64 for IPv6) and the fields, hashed together. */
  const visitorDigest = (ip: string, data: Record<string, unknown>) =>
    createHash("sha256")
      .update(`${addressBucket(ip)}\n${JSON.stringify(data)}`)
      .digest("base64url")
      .slice(0, 32);

  const check: SubmitCheck = {
    name: "spam-filter",
    check(candidate): Verdict | Promise<Verdict> {
      const { form, data } = candidate;
      const reasons: string[] = [...(honeypotCaught.get(candidate) ? ["honeypot"] : []), ...ruleReasons(form, data)];
      // Tokens are most of the check's cost: made only for a model that has learned something. A
      // honeypot catch teaches nothing: whoever fills it chooses its words, and would teach the
      // owner's filter that their customers' wording is spam.
      const tokensOf = () => hash(tokenize(data));
      // The duplicate rule is decided by its writer, in the commit (filter-repo.ts `fileDuplicates`).
      if (form.duplicateWindowSeconds !== null)
        visitorDigestOf.set(candidate, visitorDigest(candidate.submitter.ip, data));
      const finish = (model: Model): Verdict => {
        // A model that has learned nothing scores every submission 0.5, as `score` would find.
        const s = model.spam + model.ham === 0 ? 0.5 : score(model, tokensOf());
        if (model.spam >= FILING_AFTER && model.ham >= FILING_AFTER && s >= form.spamThreshold) reasons.push("filter");
        candidate.spam = { score: s, reasons };
        return reasons.length ? "spam" : "accept";
      };
      const held = models.get(form.teamId);
      return held?.fresh ? finish(held) : load(form.teamId).then(finish);
    },
  };

  /**
   * The team whose filter an actor may ask about, and how to name it: the operator names an owner by
   * email (their personal team); a key or session names one of its teams, by default its own.
   */
  async function teamOf(
    actor: Actor,
    which: { owner?: string; teamId?: string },
  ): Promise<{ id: string; owner: string }> {
    if (isOperator(actor)) {
      const owner = which.owner ? await owners.findOwner(which.owner) : null;
      if (!owner) throw new AppError("NOT_FOUND", `no owner ${which.owner ?? ""}`.trim());
      return { id: personalTeamId(owner.id), owner: owner.email };
    }
    requireOwnerScope(actor);
    const id = which.teamId ?? actor.team;
    authorize(actor, id);
    return { id, owner: (await owners.findOwnerById(actor.ownerId))?.email ?? actor.ownerId };
  }

  return {
    check,

    /**
     * Teaches the filter a mark (`spam` or `not-spam`, moved or not) in the caller's transaction:
     * an opposite earlier lesson of the same submission is taken back first. Returns what to run
     * once the transaction has committed.
     */
    teach: (form: Form, submission: StoredSubmission, to: SubmissionStatus): Promise<() => void> =>
      learn(
        form.teamId,
        submission.id,
        to === "spam" ? "spam" : "ham",
        hash(tokenize(JSON.parse(submission.data) as Record<string, unknown>)),
      ),

    /**
     * A form leaving its team, in the move's transaction: what its submissions taught that team's
     * filter is taken back out. Answers what to run once the move committed: those models are read
     * again when next needed.
     */
    async formMoving(form: Form): Promise<() => void> {
      const teams = await repo.forgetFormLessons(form.id);
      return () => {
        epoch += 1;
        for (const team of teams) models.delete(team);
      };
    },

    /** After a deletion's commit: a model an erasure took lessons out of is read again when next needed. */
    afterCommit: ((committed) => {
      if (committed.change !== "deleted") return;
      for (const s of committed.batch)
        if (s.erased) {
          epoch += 1;
          models.delete(s.form.teamId);
        }
    }) satisfies AfterCommit,

    /** What a team's filter has learned, and whether (since when) it files spam. */
    async status(actor: Actor, which: { owner?: string; teamId?: string } = {}): Promise<FilterStatusJson> {
      const team = await teamOf(actor, which);
      const row = await repo.findFilter(team.id);
      const spam = row?.spam ?? 0;
      const notSpam = row?.ham ?? 0;
      const filing = spam >= FILING_AFTER && notSpam >= FILING_AFTER;
      return {
        teamId: team.id,
        owner: team.owner,
        spam,
        notSpam,
        filing,
        filingSince: filing ? (row?.filing_since ?? null) : null,
      };
    },

    /**
     * Forgets everything an owner's filter learned, here at once and in every other process by its
     * version; the audit trail records it (`spam.reset`, with the counts it had learned from).
     */
    async reset(actor: Actor, which: { owner?: string; teamId?: string } = {}): Promise<FilterStatusJson> {
      const team = await teamOf(actor, which);
      await atomically(async () => {
        const row = await repo.findFilter(team.id);
        await repo.reset(team.id);
        await audit.record(actor, team.id, "spam.reset", team.id, {
          spam: row?.spam ?? 0,
          notSpam: row?.ham ?? 0,
        });
      });
      epoch += 1;
      models.delete(team.id);
      return { teamId: team.id, owner: team.owner, spam: 0, notSpam: 0, filing: false, filingSince: null };
    },
  };
}

interface Lesson {
  label: Label;
  tokens: number[];
}

export type SpamFilter = ReturnType<typeof createSpamFilter>;
