import { expect, test } from "bun:test";
import { startTestServer } from "../helpers/harness";

test("Sql.afterCommit runs what a transaction registered once it has committed, and nothing of what was rolled back", async () => {
  const server = await startTestServer();
  try {
    const { sql } = server.store;
    const ran: string[] = [];
    const later = (name: string) => sql.afterCommit(() => ran.push(name));
    const cases: { name: string; work: () => Promise<unknown>; ran: string[] }[] = [
      { name: "outside a transaction: at once", work: async () => later("now"), ran: ["now"] },
      {
        name: "a committed transaction: each, in order, after the commit",
        work: () =>
          sql.transaction(async () => {
            later("a");
            later("b");
            // Nothing runs before the commit.
            expect(ran).toEqual([]);
          }),
        ran: ["a", "b"],
      },
      {
        name: "a rolled-back transaction: none",
        work: () =>
          sql
            .transaction(async () => {
              later("lost");
              throw new Error("roll back");
            })
            .catch(() => {}),
        ran: [],
      },
      {
        name: "a savepoint: with its outer transaction's commit; a rolled-back one's: none",
        work: () =>
          sql.transaction(async () => {
            later("outer");
            await sql.transaction(async () => later("kept"));
            await sql
              .transaction(async () => {
                later("undone");
                throw new Error("roll back the savepoint");
              })
              .catch(() => {});
            expect(ran).toEqual([]);
          }),
        ran: ["outer", "kept"],
      },
    ];
    for (const c of cases) {
      ran.length = 0;
      await c.work();
      expect({ case: c.name, ran }).toEqual({ case: c.name, ran: c.ran });
    }
  } finally {
    await server.close();
  }
});
