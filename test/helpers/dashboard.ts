import type { Clock } from "../../src/lib/clock";
import { seedOwner, type TestServer } from "./harness";

/** A clock at real time, that seeding can send into the past for a while (the browser's "today" is real time). */
export function movableClock(): Clock & { at(t: number | null): void } {
  let pinned: number | null = null;
  return { now: () => pinned ?? Date.now(), at: (t) => void (pinned = t) };
}

const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:132.0) Gecko/20100101 Firefox/132.0",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
];
// Addresses in the United Kingdom, the United States, Germany, France and Japan (geoip-country's data).
const ADDRESSES = ["81.2.69.142", "8.8.8.8", "5.9.0.1", "2.2.2.2", "1.0.16.1"];
const NAMES = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Katherine Johnson", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth", "Frances Allen"];
const MESSAGES = [
  "Hello! Could you tell me more about your pricing for teams?",
  "The form on your site works nicely, thanks.",
  "I would like to book a demo next week.",
  "Is there an API for exports?",
  "Please call me back about the order.",
];

/**
 * An owner with two forms: "Contact" with `count` submissions spread over the last 40 days (several
 * browsers, devices and countries; the server needs trustProxy for the countries), and an empty
 * "Waitlist". Submissions go through the real submit endpoint, each at its own moment of the clock.
 */
export async function seedDashboard(server: TestServer, clock: ReturnType<typeof movableClock>, count = 60, email = "owner@example.com") {
  const { key, formId, ownerId } = seedOwner(server, email, { name: "Contact", formType: "contact", description: "The contact form on the home page" });
  const waitlist = server.services.forms.createForm({ owner: email, name: "Waitlist", formType: "waitlist", usersJoinedEnabled: true });
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    // Older ones thinner, recent ones denser; the same every run.
    const daysAgo = Math.floor(((i * 7919) % 1000) / 1000 * 40 * ((i % 3) + 1) / 3);
    clock.at(now - daysAgo * 86_400_000 - ((i * 3607) % 36_000) * 1000);
    const name = NAMES[i % NAMES.length]!;
    const res = await server.request("/api/v1/forms/submit", {
      method: "POST",
      key,
      headers: { "content-type": "application/json", "user-agent": AGENTS[i % AGENTS.length]!, "x-forwarded-for": ADDRESSES[(i * 3) % ADDRESSES.length]! },
      body: JSON.stringify({ formId, data: { name, email: `${name.split(" ")[0]!.toLowerCase()}${i}@example.com`, message: MESSAGES[i % MESSAGES.length] } }),
    });
    if (res.status !== 200) throw new Error(`seeding a submission: ${res.status} ${await res.text()}`);
  }
  clock.at(null);
  return { key, formId, ownerId, waitlistId: waitlist.id, email };
}
