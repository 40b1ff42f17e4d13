// Sign up and log in. Errors come back from the server in its words and land on the field they name. The
// server's SIGNUP setting shapes sign-up: open to anyone, by invite code (from the invitation link), or closed.
import { html, nothing } from 'lit';
import { formError, renderLoad } from '../components/states.ts';
import { ApiError } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { emit } from '../lib/events.ts';
import { Loader, toApiError } from '../lib/loader.ts';
import { currentRoute } from '../lib/router.ts';
import { logIn, signUp, signupMode } from '../lib/session.ts';
import type { SignupMode } from '../lib/types.ts';

const MIN_PASSWORD = 10;

export class AuthPage extends AppElement {
  static override properties = { mode: {}, busy: { state: true }, error: { state: true } };
  declare mode: 'login' | 'signup';
  declare busy: boolean;
  declare error: ApiError | null;
  private signupMode = new Loader<SignupMode>(this, signupMode);

  constructor() {
    super();
    this.mode = 'login';
    this.busy = false;
    this.error = null;
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('mode')) this.error = null;
  }

  private async submit(e: SubmitEvent) {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const email = String(form.get('email') ?? '');
    const password = String(form.get('password') ?? '');
    if (this.mode === 'signup' && password.length < MIN_PASSWORD) {
      this.error = new ApiError(
        400,
        'validation_failed',
        `The password must be at least ${MIN_PASSWORD} characters long.`,
        { field: 'password' },
      );
      this.querySelector<HTMLInputElement>('#auth-password')?.focus();
      return;
    }
    this.busy = true;
    this.error = null;
    try {
      if (this.mode === 'signup')
        await signUp(email, password, String(form.get('shop_name') ?? ''), String(form.get('invite_code') ?? ''));
      else await logIn(email, password);
      emit(this, 'sq-signed-in', null);
    } catch (err) {
      this.error = toApiError(err);
      this.busy = false;
      await this.updateComplete;
      this.querySelector<HTMLElement>(`#auth-${this.errorField() ?? 'email'}`)?.focus();
    }
  }

  /** The field a server error names (email, password or invite code), for aria-invalid and focus. */
  private errorField(): string | null {
    const f = this.error?.fields[0]?.field?.replace(/^\//, '');
    return f === 'email' || f === 'password' || f === 'invite_code' ? f : null;
  }

  private field(name: string, label: string, type: string, autocomplete: string, hint = '', value = '') {
    const invalid = this.errorField() === name;
    return html`<div class="field">
      <label for="auth-${name}">${label}</label>
      <input id="auth-${name}" name=${name} type=${type} autocomplete=${autocomplete} required value=${value || nothing}
        aria-invalid=${invalid ? 'true' : 'false'} aria-describedby=${hint ? `auth-${name}-hint` : nothing} />
      ${hint ? html`<p class="hint" id="auth-${name}-hint">${hint}</p>` : nothing}
    </div>`;
  }

  private card(title: string, body: unknown) {
    return html`<section class="auth-card">
      <p class="brand brand-large"><span class="brand-mark" aria-hidden="true"></span>slicequote</p>
      <h1>${title}</h1>
      ${body}
    </section>`;
  }

  protected override render() {
    if (this.mode !== 'signup') return this.form('open');
    return renderLoad(this.signupMode.state, 'whether this server takes sign-ups', (mode) =>
      mode === 'off' ? this.closed() : this.form(mode),
    );
  }

  private closed() {
    return this.card(
      'Sign-up is closed',
      html`<p>This server does not take new sign-ups. Ask its operator for an account, then log in.</p>
        <p class="auth-switch">Already have an account? <a href="#/login">Log in</a></p>`,
    );
  }

  private form(mode: SignupMode) {
    const signup = this.mode === 'signup';
    const invite = signup && mode === 'invite';
    // On the log-in page the mode may still be loading: the sign-up link shows unless sign-up is known closed.
    const signupOffered = this.signupMode.data !== 'off';
    return this.card(
      signup ? 'Create your merchant account' : 'Log in to your dashboard',
      html`<p class="muted">${
        invite
          ? 'Sign-up on this server is by invitation: enter the invite code you were sent.'
          : signup
            ? 'Quote 3D prints from real slices on your own shop. Free plan, no card needed.'
            : 'Manage API tokens, widget keys, slice profiles, webhooks and analytics.'
      }</p>
      <form @submit=${this.submit} novalidate>
        ${
          invite
            ? this.field(
                'invite_code',
                'Invite code',
                'text',
                'off',
                'From your invitation link; each code creates one account.',
                currentRoute().query.get('invite') ?? '',
              )
            : nothing
        }
        ${this.field('email', 'Email', 'email', 'email')}
        ${this.field('password', 'Password', 'password', signup ? 'new-password' : 'current-password', signup ? `At least ${MIN_PASSWORD} characters.` : '')}
        ${
          signup
            ? html`<div class="field"><label for="auth-shop_name">Shop name <span class="muted">(optional)</span></label>
          <input id="auth-shop_name" name="shop_name" type="text" autocomplete="organization" maxlength="100" /></div>`
            : nothing
        }
        ${formError(this.error)}
        <button type="submit" class="btn btn-primary btn-block" ?disabled=${this.busy}>
          ${this.busy ? (signup ? 'Creating your account…' : 'Logging in…') : signup ? 'Sign up' : 'Log in'}
        </button>
      </form>
      <p class="auth-switch">
        ${
          signup
            ? html`Already have an account? <a href="#/login">Log in</a>`
            : signupOffered
              ? html`New to slicequote? <a href="#/signup">Create an account</a>`
              : nothing
        }
      </p>
    `,
    );
  }
}
customElements.define('sq-auth-page', AuthPage);
