import { describe, expect, test } from "bun:test";
import { joinTeam } from "../helpers/accounts";
import { useServer } from "../helpers/fixture";
import { cliJsonAsync, runCliAsync } from "../helpers/harness";
import { personalTeamId } from "../../src/lib/rights";

// A running server over the database: what the commands change, its API answers at once.
const server = useServer();
const db = () => ({ db: server.db });

const roles = async (teamId: string) =>
  (
    await server.query(
      "SELECT o.email, m.role FROM team_members m JOIN owners o ON o.id = m.owner_id WHERE m.team_id = ? ORDER BY o.email",
      teamId,
    )
  ).map((r) => `${r.email} ${r.role}`);

describe("formsvc teams", () => {
  test("create makes a team owned by --owner; list shows it beside their personal team, with their role", async () => {
    const team = await cliJsonAsync(["teams", "create", "Agency", "--owner", "Boss@Example.com"], db());
    expect(team).toMatchObject({ name: "Agency", personal: false, role: "owner" });
    const boss = (await server.services.owners.findOwner("boss@example.com"))!;
    const listed = await cliJsonAsync<any[]>(["teams", "list", "--owner", "boss@example.com"], db());
    expect(listed.map((t) => [t.id, t.role, t.personal])).toEqual([
      [personalTeamId(boss.id), "owner", true],
      [team.id, "owner", false],
    ]);
    const text = await runCliAsync(["teams", "list", "--owner", "boss@example.com"], db());
    expect(text.stdout).toContain("Agency");
    expect(text.stdout).toContain(team.id);
    expect(await cliJsonAsync(["teams", "list", "--owner", "nobody@example.com"], db())).toEqual([]);
  });

  test("members, role and remove manage a team's members; the last owner stays, and the trail says the command line did it", async () => {
    const team = await cliJsonAsync(["teams", "create", "Shop", "--owner", "shop@example.com"], db());
    const colleague = await server.services.owners.ensureOwner("colleague@example.com");
    await joinTeam(server, team.id, colleague.id, "viewer");
    const members = await cliJsonAsync<any[]>(["teams", "members", team.id], db());
    expect(members.map((m) => [m.email, m.role])).toEqual([
      ["shop@example.com", "owner"],
      ["colleague@example.com", "viewer"],
    ]);

    const promoted = await cliJsonAsync(["teams", "role", team.id, "editor", "--owner", "colleague@example.com"], db());
    expect(promoted).toMatchObject({ ownerId: colleague.id, role: "editor" });
    expect(await roles(team.id)).toEqual(["colleague@example.com editor", "shop@example.com owner"]);

    for (const [args, error] of [
      [
        ["teams", "role", team.id, "god", "--owner", "colleague@example.com"],
        "role must be viewer, editor, admin, owner",
      ],
      [["teams", "role", team.id, "viewer", "--owner", "nobody@example.com"], "there is no owner nobody@example.com"],
      [["teams", "remove", team.id, "--owner", "shop@example.com"], "the last owner cannot leave"],
      [["teams", "role", team.id, "admin", "--owner", "shop@example.com"], "the last owner cannot be demoted"],
      [["teams", "members", "tm_nope"], "no team with id tm_nope"],
    ] as [string[], string][]) {
      const res = await runCliAsync(args, db());
      expect([args.join(" "), res.code === 0, res.stdout]).toEqual([args.join(" "), false, ""]);
      expect(res.stderr).toContain(error);
    }
    expect(await roles(team.id)).toEqual(["colleague@example.com editor", "shop@example.com owner"]);

    const removed = await runCliAsync(["teams", "remove", team.id, "--owner", "colleague@example.com"], db());
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("Removed colleague@example.com (editor)");
    expect(await roles(team.id)).toEqual(["shop@example.com owner"]);

    const trail = await cliJsonAsync<any[]>(["audit", "--team", team.id], db());
    expect(trail.map((e) => [e.action, e.actorKind, e.objectId, e.detail])).toEqual([
      ["member.removed", "cli", colleague.id, { email: "colleague@example.com", role: "editor", left: false }],
      ["member.role", "cli", colleague.id, { email: "colleague@example.com", from: "viewer", to: "editor" }],
      ["team.created", "cli", team.id, { name: "Shop" }],
    ]);
  });

  test("--owner EMAIL elsewhere keeps meaning that owner's personal team", async () => {
    await cliJsonAsync(["teams", "create", "Elsewhere", "--owner", "solo@example.com"], db());
    const form = await cliJsonAsync(["forms", "create", "--owner", "solo@example.com", "--name", "Mine"], db());
    const solo = (await server.services.owners.findOwner("solo@example.com"))!;
    expect(form.teamId).toBe(personalTeamId(solo.id));
  });
});
