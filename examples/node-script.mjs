// Submit, walk every submission into a CSV file, and print a week of analytics.
//   npm run build && FORMSVC_URL=http://127.0.0.1:3000/api/v1 FORMSVC_KEY=fsk_… FORM_ID=frm_… node examples/node-script.mjs
import { writeFileSync } from "node:fs";
import { FormsvcClient } from "../dist/client/index.js";

const client = new FormsvcClient({ baseUrl: process.env.FORMSVC_URL, apiKey: process.env.FORMSVC_KEY });
const formId = process.env.FORM_ID;

// Safe to retry: the idempotency key makes a repeated request store nothing new.
const { submissionId } = await client.submit(
  { formId, data: { email: "ada@example.com", message: "Hello" } },
  { idempotencyKey: true },
);
console.log("stored", submissionId);

const quote = (v) => `"${String(v ?? "").replaceAll('"', '""')}"`;
const lines = ["id,createdAt,email,message,country"];
for await (const s of client.allSubmissions(formId, { limit: 100 })) {
  lines.push([s.id, s.createdAt, s.data.email, s.data.message, s.data._meta.country].map(quote).join(","));
}
writeFileSync("submissions.csv", `${lines.join("\n")}\n`);
console.log(`wrote ${lines.length - 1} submissions to submissions.csv`);

const week = await client.getAnalytics(formId, { period: "week" });
console.log(`${week.totalSubmissions} submissions this week; top country: ${week.topCountries[0]?.country ?? "-"}`);
console.log("rate limit left:", client.rateLimit?.remaining);
