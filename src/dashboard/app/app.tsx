import { useEffect } from "preact/hooks";
import { FormsvcError } from "./api";
import { auth } from "./calls";
import { AccountPage, Passkeys, TwoStepLogin } from "./pages/account";
import { AuditPage } from "./pages/audit";
import { FormPage, type FormTab } from "./pages/form";
import { FormsPage } from "./pages/forms";
import { KeysPage } from "./pages/keys";
import { ForgotPage, ResetPage, SetupPage } from "./pages/first-run";
import { LoginPage } from "./pages/login";
import { SubmissionPage } from "./pages/submission";
import { TeamPage } from "./pages/team";
import { go, loginHref, route } from "./router";
import { enrolmentRequired, me } from "./session";
import { PageTitle, Shell } from "./shell";
import { loadTeams } from "./team";
import { ErrorNote, Loading } from "./ui/bits";
import { useLoad } from "./ui/load";

const FORM_TABS: FormTab[] = ["analytics", "submissions", "settings", "embed"];

/** The pages of the links `serve` prints and reset emails carry, by their path; else the app behind its login. */
export function App() {
  void route.value; // read, so that leaving a link's address for a route renders again
  if (location.pathname === "/dashboard/setup") return <SetupPage />;
  if (location.pathname === "/dashboard/reset") return <ResetPage />;
  return <Session />;
}

/** Asks the server who is logged in; then the page the address names. */
function Session() {
  const [start, retry] = useLoad(async () => {
    me.value = await auth.me().catch((e: unknown) => {
      if (e instanceof FormsvcError && e.status === 401) return null;
      throw e;
    });
  }, []);
  const r = route.value;
  const atLogin = r.parts[0] === "login" || r.parts[0] === "forgot";
  useEffect(() => {
    if (me.value === null && !atLogin) go(loginHref(r.hash), true);
    else if (me.value && atLogin) go("#/forms", true);
  }, [me.value, atLogin]);

  if (start.state === "loading") return <Loading label="Opening the dashboard…" />;
  if (start.state === "failed")
    return (
      <main class="login" id="main">
        <div class="login-card">
          <h1>formsvc</h1>
          <ErrorNote error={start.error} retry={retry} />
        </div>
      </main>
    );
  if (!me.value) return atLogin ? r.parts[0] === "forgot" ? <ForgotPage /> : <LoginPage /> : null;
  return <Teams />;
}

/** The logged-in person's teams, asked once per login: the header's switcher and every page's controls follow them. */
function Teams() {
  const [teams, retry] = useLoad(loadTeams, [me.value!.id]);
  if (teams.state === "loading") return <Loading label="Opening the dashboard…" />;
  if (teams.state === "failed" && enrolmentRequired.value)
    return (
      <main class="login" id="main">
        <div class="login-card">
          <h1>formsvc</h1>
          <div class="stack">
            <Passkeys
              onDone={() => {
                enrolmentRequired.value = false;
                retry();
              }}
            />
            <TwoStepLogin
              onDone={() => {
                enrolmentRequired.value = false;
                retry();
              }}
            />
          </div>
        </div>
      </main>
    );
  if (teams.state === "failed")
    return (
      <main class="login" id="main">
        <div class="login-card">
          <h1>formsvc</h1>
          <ErrorNote error={teams.error} retry={retry} />
        </div>
      </main>
    );
  return <Page />;
}

function Page() {
  const [section, id, tab, item] = route.value.parts;
  if (section === "forms" && id && tab === "submissions" && item)
    return (
      <Shell>
        <SubmissionPage formId={id} submissionId={item} />
      </Shell>
    );
  if (section === "forms" && !id)
    return (
      <Shell title="Forms">
        <FormsPage />
      </Shell>
    );
  if (section === "forms" && id && (!tab || FORM_TABS.includes(tab as FormTab)))
    return (
      <Shell>
        <FormPage formId={id} tab={tab as FormTab | undefined} />
      </Shell>
    );
  if (section === "account")
    return (
      <Shell title="Your account">
        <AccountPage />
      </Shell>
    );
  if (section === "team" && id === "audit")
    return (
      <Shell title="Audit log">
        <AuditPage />
      </Shell>
    );
  if (section === "team" && !id)
    return (
      <Shell title="Team">
        <TeamPage />
      </Shell>
    );
  if (section === "keys")
    return (
      <Shell title="API keys">
        <KeysPage />
      </Shell>
    );
  return (
    <Shell title="Not found">
      <PageTitle>Nothing here</PageTitle>
      <p>
        This address names no page of the dashboard. <a href="#/forms">Go to your forms</a>.
      </p>
    </Shell>
  );
}
