// Signing in to the dashboard in a browser page, as an operator types it.
import type { Page } from "playwright-core";

/** An operator's credentials. */
export interface Operator {
  email: string;
  password: string;
}

/**
 * Opens the sign-in page of the cloud at `url`, submits the form (with a TOTP or recovery `code` if given), and
 * returns once the page it leads to has loaded.
 */
export async function signIn(page: Page, url: string, who: Operator, code = ""): Promise<void> {
  await page.goto(`${url}/dashboard/sign-in`);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  if (code) await page.getByLabel("Code").fill(code);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForLoadState("load");
}
