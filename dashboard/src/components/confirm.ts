// Confirmation for destructive actions, on the native <dialog>: modal, focus kept inside, Escape cancels,
// and focus returns to the button that opened it.
export interface ConfirmOptions {
  title: string;
  body: string;
  confirmLabel: string;
}

export function confirmAction(opts: ConfirmOptions): Promise<boolean> {
  const opener = document.activeElement as HTMLElement | null;
  const dialog = document.createElement('dialog');
  dialog.className = 'confirm';
  dialog.setAttribute('aria-labelledby', 'confirm-title');
  dialog.setAttribute('aria-describedby', 'confirm-body');
  const title = Object.assign(document.createElement('h2'), { id: 'confirm-title', textContent: opts.title });
  const body = Object.assign(document.createElement('p'), { id: 'confirm-body', textContent: opts.body });
  const cancel = Object.assign(document.createElement('button'), {
    type: 'button',
    className: 'btn',
    textContent: 'Cancel',
  });
  const ok = Object.assign(document.createElement('button'), {
    type: 'button',
    className: 'btn btn-danger',
    textContent: opts.confirmLabel,
  });
  const row = Object.assign(document.createElement('div'), { className: 'dialog-actions' });
  row.append(cancel, ok);
  dialog.append(title, body, row);
  document.body.append(dialog);
  return new Promise((resolve) => {
    const finish = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      opener?.focus();
      resolve(answer);
    };
    cancel.addEventListener('click', () => finish(false));
    ok.addEventListener('click', () => finish(true));
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      finish(false);
    });
    dialog.showModal();
    cancel.focus();
  });
}
