// The app shell: restores the session, routes between pages, and moves focus to each page's heading
// so keyboard and screen-reader users know the page changed.
import { html, nothing } from 'lit';
import { errorView, loadingView } from './components/states.ts';
import { ApiError } from './lib/api.ts';
import { AppElement } from './lib/element.ts';
import { UNAUTHORIZED_EVENT } from './lib/events.ts';
import { toApiError } from './lib/loader.ts';
import { currentRoute, mayLeave, navigate, type Route } from './lib/router.ts';
import { currentUser, forget, logOut, restoreSession } from './lib/session.ts';
import './pages/auth-page.ts';
import './pages/overview-page.ts';
import './pages/tokens-page.ts';
import './pages/widget-keys-page.ts';
import './pages/offer-page.ts';
import './pages/prices-page.ts';
import './pages/profiles-page.ts';
import './pages/webhooks-page.ts';
import './pages/webhook-page.ts';
import './pages/delivery-page.ts';
import './pages/quotes-page.ts';
import './pages/orders-page.ts';
import './pages/quote-page.ts';
import './pages/analytics-page.ts';

interface NavItem {
  route: string;
  label: string;
}

const NAV: NavItem[] = [
  { route: 'overview', label: 'Overview' },
  { route: 'tokens', label: 'API tokens' },
  { route: 'widget-keys', label: 'Widget keys' },
  { route: 'offer', label: 'Offer' },
  { route: 'prices', label: 'Prices' },
  { route: 'profiles', label: 'Slice profiles' },
  { route: 'webhooks', label: 'Webhooks' },
  { route: 'orders', label: 'Orders' },
  { route: 'quotes', label: 'Quote history' },
  { route: 'analytics', label: 'Usage & analytics' },
];

const PUBLIC_ROUTES = new Set(['login', 'signup']);

export class SqApp extends AppElement {
  static override properties = { route: { state: true }, phase: { state: true }, bootError: { state: true } };
  declare route: Route;
  declare phase: 'booting' | 'in' | 'out';
  declare bootError: ApiError | null;
  private focusPending = false;

  constructor() {
    super();
    this.route = currentRoute();
    this.phase = 'booting';
    this.bootError = null;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('hashchange', this.onHashChange);
    window.addEventListener(UNAUTHORIZED_EVENT, this.onUnauthorized);
    void this.boot();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('hashchange', this.onHashChange);
    window.removeEventListener(UNAUTHORIZED_EVENT, this.onUnauthorized);
  }

  private async boot() {
    this.bootError = null;
    try {
      this.phase = (await restoreSession()) ? 'in' : 'out';
      this.focusPending = true;
    } catch (err) {
      this.bootError = toApiError(err);
    }
  }

  private onHashChange = (e: HashChangeEvent) => {
    // The page stays (and so do its unsaved changes) when the merchant chooses to; the address goes back.
    if (!mayLeave()) {
      history.replaceState(history.state, '', e.oldURL);
      return;
    }
    this.route = currentRoute();
    this.focusPending = true;
  };

  private onUnauthorized = () => {
    if (this.phase !== 'in') return;
    forget();
    this.phase = 'out';
    this.focusPending = true;
  };

  private onSignedIn = () => {
    this.phase = 'in';
    this.focusPending = true;
    if (PUBLIC_ROUTES.has(this.route.name)) navigate(['overview']);
  };

  private async signOut() {
    await logOut().catch(() => undefined);
    this.phase = 'out';
    navigate(['login']);
  }

  protected override updated(): void {
    if (!this.focusPending) return;
    this.focusPending = false;
    // Pages render their heading asynchronously; wait a frame so it exists.
    requestAnimationFrame(() => {
      const h1 = this.querySelector<HTMLElement>('main h1');
      if (h1) {
        h1.tabIndex = -1;
        h1.focus();
        document.title = `${h1.textContent?.trim()} · slicequote`;
      }
    });
  }

  protected override render() {
    if (this.bootError)
      return html`<main id="main" class="boot-main"><h1>slicequote dashboard</h1>${errorView(this.bootError, () => this.boot())}</main>`;
    if (this.phase === 'booting') return html`<main id="main" class="boot-main">${loadingView('your session')}</main>`;
    if (this.phase === 'out') {
      const mode = this.route.name === 'signup' ? 'signup' : 'login';
      return html`<main id="main" class="auth-main"><sq-auth-page .mode=${mode} @sq-signed-in=${this.onSignedIn}></sq-auth-page></main>`;
    }
    return html`<a class="skip-link" href="#main" @click=${this.skip}>Skip to content</a>
      ${this.header()}
      <div class="layout">
        ${this.nav()}
        <main id="main" class="content">${this.page()}</main>
      </div>`;
  }

  private skip(e: Event) {
    // The hash is the router's: move focus without changing it.
    e.preventDefault();
    this.querySelector<HTMLElement>('main h1')?.focus();
  }

  private header() {
    const user = currentUser();
    return html`<header class="topbar">
      <a class="brand" href="#/overview"><span class="brand-mark" aria-hidden="true"></span>slicequote</a>
      <div class="topbar-user">
        <span class="muted" data-testid="user-email" title=${user?.email ?? ''}>${user?.email ?? ''}</span>
        <button type="button" class="btn btn-small" @click=${this.signOut}>Log out</button>
      </div>
    </header>`;
  }

  private nav() {
    const active = this.route.name || 'overview';
    return html`<nav class="sidenav" aria-label="Dashboard">
      <ul>
        ${NAV.map(
          (item) =>
            html`<li><a href="#/${item.route}" aria-current=${item.route === active ? 'page' : nothing}>${item.label}</a></li>`,
        )}
      </ul>
      <p class="sidenav-foot"><a href="/docs">API reference</a></p>
    </nav>`;
  }

  private page() {
    const r = this.route;
    switch (r.name) {
      case '':
      case 'overview':
      case 'login':
      case 'signup':
        return html`<sq-overview-page></sq-overview-page>`;
      case 'tokens':
        return html`<sq-tokens-page></sq-tokens-page>`;
      case 'widget-keys':
        if (r.params[1] === 'offer') return html`<sq-offer-page .keyId=${r.params[0]}></sq-offer-page>`;
        return html`<sq-widget-keys-page></sq-widget-keys-page>`;
      case 'offer':
        return html`<sq-offer-page></sq-offer-page>`;
      case 'prices':
        return html`<sq-prices-page></sq-prices-page>`;
      case 'profiles':
        return html`<sq-profiles-page .route=${r}></sq-profiles-page>`;
      case 'webhooks':
        if (r.params[1] === 'deliveries' && r.params[2])
          return html`<sq-delivery-page .webhookId=${r.params[0]} .deliveryId=${r.params[2]}></sq-delivery-page>`;
        return r.params[0]
          ? html`<sq-webhook-page .webhookId=${r.params[0]}></sq-webhook-page>`
          : html`<sq-webhooks-page></sq-webhooks-page>`;
      case 'quotes':
        return r.params[0]
          ? html`<sq-quote-page .quoteId=${r.params[0]}></sq-quote-page>`
          : html`<sq-quotes-page .query=${r.query}></sq-quotes-page>`;
      case 'orders':
        return html`<sq-orders-page .query=${r.query}></sq-orders-page>`;
      case 'analytics':
        return html`<sq-analytics-page></sq-analytics-page>`;
      default:
        return html`<h1>Page not found</h1>${errorView(new ApiError(404, 'route_not_found', `There is no dashboard page at #/${r.name}.`))}
          <p><a href="#/overview">Go to the overview</a></p>`;
    }
  }
}
customElements.define('sq-app', SqApp);
