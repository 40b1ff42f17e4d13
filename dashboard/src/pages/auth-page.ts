// Sign up and log in. Errors come back from the server in its words and land on the field they name.
import { html, nothing } from 'lit';
import { AppElement } from '../lib/element.ts';
import { ApiError } from '../lib/api.ts';
import { logIn, signUp } from '../lib/session.ts';
import { toApiError } from '../lib/loader.ts';
import { formError } from '../components/states.ts';

const MIN_PASSWORD = 10;

export class AuthPage extends AppElement {
  static override properties = { mode: {}, busy: { state: true }, error: { state: true } };
  declare mode: 'login' | 'signup';
  declare busy: boolean;
  declare error: ApiError | null;

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
      if (this.mode === 'signup') await signUp(email, password, String(form.get('shop_name') ?? ''));
      else await logIn(email, password);
      this.dispatchEvent(new CustomEvent('signed-in', { bubbles: true }));
    } catch (err) {
      this.error = toApiError(err);
      this.busy = false;
      await this.updateComplete;
      this.querySelector<HTMLElement>(`#auth-${this.errorField() ?? 'email'}`)?.focus();
    }
  }

  /** The field a server error names (email or password), for aria-invalid and focus. */
  private errorField(): string | null {
    const f = this.error?.fields[0]?.field?.replace(/^\//, '');
    return f === 'email' || f === 'password' ? f : null;
  }

  private field(name: string, label: string, type: string, autocomplete: string, hint = '') {
    const invalid = this.errorField() === name;
    return html`<div class="field">
      <label for="auth-${name}">${label}</label>
      <input id="auth-${name}" name=${name} type=${type} autocomplete=${autocomplete} required
        aria-invalid=${invalid ? 'true' : 'false'} aria-describedby=${hint ? `auth-${name}-hint` : nothing} />
      ${hint ? html`<p class="hint" id="auth-${name}-hint">${hint}</p>` : nothing}
    </div>`;
  }

  protected override render() {
    const signup = this.mode === 'signup';
    return html`<section class="auth-card">
      <p class="brand brand-large"><span class="brand-mark" aria-hidden="true"></span>slicequote</p>
      <h1>${signup ? 'Create your merchant account' : 'Log in to your dashboard'}</h1>
      <p class="muted">${signup ? 'Quote 3D prints from real slices on your own shop. Free plan, no card needed.' : 'Manage API tokens, widget keys, slice profiles, webhooks and analytics.'}</p>
      <form @submit=${this.submit} novalidate>
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
        ${signup ? html`Already have an account? <a href="#/login">Log in</a>` : html`New to slicequote? <a href="#/signup">Create an account</a>`}
      </p>
    </section>`;
  }
}
customElements.define('sq-auth-page', AuthPage);
