// The front door of mail/: e-mail sent by the server through the operator's SMTP server (SMTP_URL, SMTP_FROM).
// Other folders import only what is exported here (npm run check:graph).
export { type MailMessage, SmtpError, sendMail } from './smtp.ts';
