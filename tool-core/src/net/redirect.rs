//! Following redirects: every hop checked, counted and judged by the
//! policy's [`RedirectRule`].

use super::blocked::TooManyRedirects;
use super::guard::SsrfGuard;
use super::policy::RedirectRule;

/// The reqwest redirect policy enforcing `guard`'s rule, checks and cap.
/// Order per hop: the guard's check (the more useful refusal), the cap,
/// then the rule.
pub(super) fn policy(guard: SsrfGuard) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let policy = guard.policy();
        if policy.is_enabled()
            && let Err(blocked) = guard.check_parsed(attempt.url())
        {
            return attempt.error(blocked);
        }
        let max = policy.max_redirects;
        if attempt.previous().len() > max {
            return attempt.error(TooManyRedirects { limit: max });
        }
        match policy.redirect_rule {
            RedirectRule::Any => attempt.follow(),
            RedirectRule::SameOriginKeepMethod => {
                let same_origin = attempt
                    .previous()
                    .first()
                    .is_some_and(|first| first.origin() == attempt.url().origin());
                let keeps_method = matches!(attempt.status().as_u16(), 307 | 308);
                if same_origin && keeps_method {
                    attempt.follow()
                } else {
                    attempt.stop()
                }
            }
        }
    })
}
