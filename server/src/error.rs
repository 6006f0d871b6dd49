//! Errors a statement returns to its client, each with a PostgreSQL SQLSTATE.

use kpg_sql::PlanError;
use kpg_types::EvalError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    pub code: &'static str,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
    pub position: Option<usize>,
}

impl ExecError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        ExecError {
            code,
            message: message.into(),
            detail: None,
            hint: None,
            position: None,
        }
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn unsupported(what: impl std::fmt::Display) -> Self {
        Self::new("0A000", format!("{what} not supported"))
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new("XX000", message)
    }
}

impl From<PlanError> for ExecError {
    fn from(e: PlanError) -> Self {
        ExecError {
            code: e.code,
            message: e.message,
            detail: e.detail,
            hint: None,
            position: e.position,
        }
    }
}

impl From<EvalError> for ExecError {
    fn from(e: EvalError) -> Self {
        ExecError {
            detail: e.detail(),
            ..ExecError::new(e.sqlstate(), e.to_string())
        }
    }
}

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}
