import { expect, test } from "bun:test";
import { newId } from "../../src/lib/ids";
import type { NewSubmission, SubmissionStatus } from "../../src/modules/submissions/model";
import type { Committed } from "../../src/modules/submissions/pipeline";
import { submitPipeline } from "../../src/services";
import { seedOwner, startTestServer } from "../helpers/harness";
import { startSmtpSink } from "../helpers/smtp-sink";

test("every commit through the submit pipeline (submit, move either way, delete) tells its hooks what changed and how many messages it queued, from a pipeline that shares no repository with anything", async () => {
  const server = await startTestServer();
  try {
    // Owner notifications on: each inbox submission queues exactly one message.
    const owner = await seedOwner(server, "owner@example.com", { emailEnabled: true, developerNotifications: true });
    const form = await server.services.forms.requireForm(owner.formId);
    const meta = {
      browser: null,
      browserVersion: null,
      os: null,
      osVersion: null,
      device: "unknown" as const,
      country: "ZZ",
      language: null,
      referrer: null,
    };
    const submission = (status: SubmissionStatus): NewSubmission => ({
      id: newId("sub"),
      form,
      status,
      json: JSON.stringify({ message: "hi", _meta: meta }),
      meta,
      email: null,
      createdAt: new Date().toISOString(),
      idempotency: null,
      stages: {},
    });
    const told: { change: Committed["change"]; ids: string[]; queued: number }[] = [];
    const pipeline = submitPipeline(server.store.sql, undefined, {
      hooks: [(c) => told.push({ change: c.change, ids: c.batch.map((s) => s.id), queued: c.queued })],
    });
    const [a, b, spam] = [submission("inbox"), submission("inbox"), submission("spam")];

    const steps: { name: string; run: () => Promise<unknown>; expected: (typeof told)[number]; outbox: number }[] = [
      {
        name: "submit",
        run: () => pipeline.commit([a, b, spam]),
        expected: { change: "submitted", ids: [a.id, b.id, spam.id], queued: 2 },
        outbox: 2,
      },
      {
        name: "move to spam",
        run: () => pipeline.transaction((tx) => tx.move([{ ...a, status: "spam" }], "spam")),
        expected: { change: "spam", ids: [a.id], queued: 0 },
        outbox: 2,
      },
      {
        name: "move to the inbox",
        run: () => pipeline.transaction((tx) => tx.move([{ ...spam, status: "inbox" }], "inbox")),
        expected: { change: "inbox", ids: [spam.id], queued: 1 },
        outbox: 3,
      },
      {
        name: "delete",
        run: () => pipeline.transaction((tx) => tx.delete([b])),
        expected: { change: "deleted", ids: [b.id], queued: 0 },
        outbox: 2,
      },
    ];
    for (const step of steps) {
      told.length = 0;
      await step.run();
      expect({ step: step.name, told }).toEqual({ step: step.name, told: [step.expected] });
      const [row] = await server.query<{ n: number }>("SELECT count(*) AS n FROM outbox");
      expect({ step: step.name, outbox: row!.n }).toEqual({ step: step.name, outbox: step.outbox });
    }

    // A transaction that fails commits nothing and tells no hook.
    told.length = 0;
    const failing = pipeline.transaction(async (tx) => {
      await tx.move([{ ...a, status: "inbox" }], "inbox");
      throw new Error("changed my mind");
    });
    expect(failing).rejects.toThrow("changed my mind");
    await failing.catch(() => {});
    expect(told).toEqual([]);
    expect(await server.query("SELECT status FROM submissions WHERE id = ?", a.id)).toEqual([{ status: "spam" }]);
  } finally {
    await server.close();
  }
});

test("a submission moved out of the spam folder is mailed to the owner at once, not at the outbox's next scheduled drain", async () => {
  const sink = await startSmtpSink();
  const server = await startTestServer({ config: { smtpUrl: sink.url } });
  try {
    const owner = await seedOwner(server, "owner@example.com", { emailEnabled: true, developerNotifications: true });
    const sent = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: owner.key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ formId: owner.formId, data: { message: "hi", _gotcha: "bot" } }),
    });
    expect(sent.status).toBe(200);
    const id = sent.body.submissionId as string;
    const t0 = performance.now();
    const moved = await server.json(`/api/v1/forms/${owner.formId}/submissions/${id}/not-spam`, {
      method: "POST",
      key: owner.key,
    });
    expect(moved.status).toBe(200);
    await sink.waitFor(1, 4000);
    // The job that drains the outbox runs every 5 s: well under that, the move's own hook woke the sender.
    expect(performance.now() - t0).toBeLessThan(2000);
  } finally {
    await server.close();
    await sink.close();
  }
});
