//! Errors in a scenario, located at a line and column so that the command
//! line (`FILE:LINE:COL: error: ...`) and the editor can point at them.

use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{line}:{col}: error: {message}")]
pub struct ScenarioError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl ScenarioError {
    pub fn at(line: usize, col: usize, message: impl Into<String>) -> ScenarioError {
        ScenarioError { line, col, message: message.into() }
    }

    /// `FILE:LINE:COL: error: MESSAGE`, as the contract prints it.
    pub fn render(&self, file: &str) -> String {
        format!("{file}:{}:{}: error: {}", self.line, self.col, self.message)
    }
}
