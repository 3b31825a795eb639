import type { Clock } from "../../lib/clock";
import { isoTime } from "../../lib/clock";
import { normalizeEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { personalTeamId } from "../../lib/rights";
import type { Atomically } from "../../db/sql";
import type { TeamsRepo } from "../teams/repo";
import type { Owner, OwnersRepo } from "./repo";

export function createOwnersService(repo: OwnersRepo, teams: TeamsRepo, atomically: Atomically, clock: Clock) {
  const valid = (email: string) => {
    const normalized = normalizeEmail(email);
    if (!normalized) throw new AppError("INVALID_PARAMETER", `"${email}" is not a valid email address`);
    return normalized;
  };

  return {
    /** The owner with this email, created the first time it is named, with their personal team (they are its owner). */
    async ensureOwner(email: string): Promise<Owner> {
      const normalized = valid(email);
      const existing = await repo.findOwnerByEmail(normalized);
      if (existing) return existing;
      const owner = { id: newId("own"), email: normalized, createdAt: isoTime(clock.now()) };
      const team = personalTeamId(owner.id);
      await atomically(async () => {
        await repo.insertOwner(owner);
        await teams.insertTeam({ id: team, name: owner.email, personalOf: owner.id, createdAt: owner.createdAt });
        await teams.insertMember({ teamId: team, ownerId: owner.id, role: "owner", at: owner.createdAt });
      });
      return owner;
    },
    /** The owner with this id, or null. */
    findOwnerById: (id: string): Promise<Owner | null> => repo.findOwnerById(id),
    /** The owner with this email, or null (a 400 for what is no email address). */
    async findOwner(email: string): Promise<Owner | null> {
      return repo.findOwnerByEmail(valid(email));
    },
  };
}

export type OwnersService = ReturnType<typeof createOwnersService>;
