//! What the command line adds to the library's errors: the flag that answers each one. The
//! library knows no flag (a test holds it to that); here, where the flags are defined, an
//! error of a known kind gets the flag that fixes it, and confirmation prompts live here too.

use std::io::IsTerminal;

use super::CommandError;
use df_apply::change::ChangeError;
use df_apply::manifest::PatchError;
use df_live::LiveError;
use df_live::apply::ApplyError;
use df_manifest::LoadError;
use df_plan::PlanError;
use df_state::recorded::STATE_TOO_LARGE;

/// The text the command line appends to `error`'s message, if any.
pub fn flag_hint(error: &CommandError) -> Option<&'static str> {
    match error {
        CommandError::Plan(PlanError::AssumeCached(_)) => Some(" (--assume-cached)"),
        CommandError::Plan(PlanError::NotServed(_)) => Some(" (--kubernetes-version)"),
        CommandError::Schema(_) => {
            Some("; fix the input, or plan anyway with --lenient (the fields are then ignored)")
        }
        CommandError::Other(error) => error.chain().find_map(|cause| {
            cause
                .downcast_ref::<LiveError>()
                .and_then(live_hint)
                .or_else(|| match cause.downcast_ref::<ApplyError>()? {
                    ApplyError::Live(live) => live_hint(live),
                    ApplyError::NotFound { .. } => Some(" (-n)"),
                    _ => None,
                })
                .or_else(|| match cause.downcast_ref::<ChangeError>()? {
                    ChangeError::NoSuchGate { .. } => Some("; --ungate names one of them"),
                    _ => None,
                })
                .or_else(|| match cause.downcast_ref::<PatchError>()? {
                    PatchError::NoPath { .. } => Some("; pass the file with -f"),
                    _ => None,
                })
        }),
        _ => None,
    }
}

fn live_hint(error: &LiveError) -> Option<&'static str> {
    match error {
        LiveError::Kubeconfig(_) => Some("; pass --kubeconfig FILE or --state FILE"),
        LiveError::Unreachable { .. } => Some(", or pass --state FILE"),
        LiveError::Timeout { .. } => Some(" (--request-timeout)"),
        LiveError::Unauthorized { .. } => Some(" (--context)"),
        LiveError::Forbidden { .. } => Some(" and pass --state FILE"),
        _ => None,
    }
}

/// The text appended to one load error: the flag that raises the size limit.
pub fn load_hint(error: &LoadError) -> Option<&'static str> {
    match error {
        LoadError::Io { message, .. } if message.starts_with(STATE_TOO_LARGE) => {
            Some("; raise --max-state-size to read it")
        }
        _ => None,
    }
}

/// Ask before writing: `--yes` skips the question; without a terminal there is nobody to ask,
/// so the answer is no (an error), never a silent yes.
pub fn confirm(prompt: &str, yes: bool) -> Result<bool, CommandError> {
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !must_ask(yes, terminal)? {
        return Ok(true);
    }
    dialoguer::Confirm::new()
        .with_prompt(prompt)
        .default(false)
        .interact()
        .map_err(|e| anyhow::anyhow!("cannot ask for confirmation: {e}").into())
}

fn must_ask(yes: bool, terminal: bool) -> Result<bool, CommandError> {
    match (yes, terminal) {
        (true, _) => Ok(false),
        (false, true) => Ok(true),
        (false, false) => Err(anyhow::anyhow!(
            "refusing to write without confirmation: stdin is not a terminal; pass --yes"
        )
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confirmation_needs_yes_or_a_terminal() {
        let cases = [
            (true, false, false),
            (true, true, false),
            (false, true, true),
        ];
        for (yes, terminal, expected) in cases {
            assert_eq!(
                must_ask(yes, terminal).ok(),
                Some(expected),
                "{yes} {terminal}"
            );
        }
        assert_eq!(
            must_ask(false, false).unwrap_err().to_string(),
            "refusing to write without confirmation: stdin is not a terminal; pass --yes"
        );
    }
}
