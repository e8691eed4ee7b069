import { AppError } from '../../domain/errors.js';

/** Who used a link: the session it opens is started for them. */
export interface Client {
  clientAddress: string;
  userAgent: string | null;
}

/** The one refusal of a link that cannot be used, whatever the reason, so a guess learns nothing. */
export const invalidLink = () =>
  new AppError('link_invalid', 'this link was already used, has expired or is not one of ours');
