// Keyboard focus across renders: a render that removes or disables the focused control (the drop zone's button once
// the model is shown, "Try again" once it worked, a removed row) would drop focus on the page's body, where a keyboard
// or screen-reader user loses their place. The element's parts plan where focus goes after the next render instead
// (a new form's first field, a row's neighbour); with no plan, focus moves to the control that took the lost one's
// place, else to the price.
import type { ReactiveController, ReactiveControllerHost } from 'lit';

type Host = ReactiveControllerHost & { readonly renderRoot: HTMLElement | DocumentFragment };

export class FocusKeeper implements ReactiveController {
  /** Where focus goes after the next render: a selector, and whether the element is first scrolled into view. */
  private planned: { selector: string; reveal: boolean } | null = null;
  /** The control that had the focus when the render began. */
  private focused: HTMLElement | null = null;

  constructor(private readonly host: Host) {
    host.addController(this);
  }

  /**
   * After the next render, focus goes to the element `selector` finds; `reveal` scrolls it to the middle of the
   * screen first (on a phone a form above the sticky bar is out of sight).
   */
  after(selector: string, reveal = false): void {
    this.planned = { selector, reveal };
  }

  hostUpdate(): void {
    this.focused = (this.host.renderRoot as ShadowRoot).activeElement as HTMLElement | null;
  }

  hostUpdated(): void {
    const { planned, focused } = this;
    this.planned = this.focused = null;
    const target = planned ? this.find(planned.selector) : null;
    if (planned) {
      if (planned.reveal) target?.scrollIntoView({ block: 'center' });
      target?.focus({ preventScroll: true });
      if (target) return;
    }
    if (!focused || (focused.isConnected && !(focused as HTMLButtonElement).disabled)) return;
    const sameRole = focused.getAttribute('part')?.includes('choose-button')
      ? this.find('[part~=choose-button]')
      : null;
    (sameRole ?? this.find('[part~=price]'))?.focus({ preventScroll: true });
  }

  private find(selector: string): HTMLElement | null {
    return this.host.renderRoot.querySelector<HTMLElement>(selector);
  }
}
