import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { auth } from "./calls";
import { act, announce, Announcer } from "./ui/bits";
import { arrival, go, route } from "./router";
import { loginNotice, me } from "./session";
import { TeamSwitch } from "./team-switch";

/**
 * The frame of every page after login: a skip link, the header with the places and the owner, the
 * page itself. On each move to another page, focus goes to its heading, so a screen reader says
 * where the user arrived (and the keyboard starts there).
 */
export function Shell({ title, children }: { title?: string; children: ComponentChildren }) {
  const section = route.value.parts[0];
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    if (title) document.title = `${title} · formsvc`;
  }, [title]);
  return (
    <>
      <a
        class="skip-link"
        href="#main"
        onClick={(e) => (e.preventDefault(), main.current?.querySelector<HTMLElement>("h1")?.focus())}
      >
        Skip to content
      </a>
      <header class="topbar">
        <div class="topbar-inner">
          <a class="brand" href="#/forms">
            <span class="brand-mark" aria-hidden="true">
              F
            </span>
            formsvc
          </a>
          <div class="places">
            <TeamSwitch />
            <nav aria-label="Main" class="mainnav">
              <a href="#/forms" aria-current={section === "forms" ? "page" : undefined}>
                Forms
              </a>
              <a href="#/team" aria-current={section === "team" ? "page" : undefined}>
                Team
              </a>
              <a href="#/keys" aria-current={section === "keys" ? "page" : undefined}>
                API keys
              </a>
            </nav>
          </div>
          <div class="account">
            <a
              class="account-link"
              href="#/account"
              title={`${me.value?.email ?? ""}: your account`}
              aria-current={section === "account" ? "page" : undefined}
            >
              <span class="account-email">{me.value?.email}</span>
              <span class="account-short">Account</span>
            </a>
            <button
              type="button"
              class="button button-quiet"
              onClick={act(async () => {
                try {
                  await auth.logout();
                  me.value = null;
                  loginNotice.value = "You have logged out.";
                  go("#/login", true);
                } catch (e) {
                  announce(`Could not log out: ${e instanceof Error ? e.message : String(e)}`);
                }
              })}
            >
              Log out
            </button>
          </div>
        </div>
      </header>
      <main id="main" ref={main} class="page">
        {children}
      </main>
      <Announcer />
    </>
  );
}

/** A page's heading; it takes focus when the user has just arrived on the page (see `arrival`). */
export function PageTitle({ children, sub }: { children: ComponentChildren; sub?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!arrival.pending) return;
    arrival.pending = false;
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <div class="page-title">
      <h1 tabIndex={-1} ref={heading}>
        {children}
      </h1>
      {sub && <p class="muted">{sub}</p>}
    </div>
  );
}
