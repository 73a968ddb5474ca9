//! The scenario language (`../shared/design/scenario-format.md`): the lexer,
//! the parser with located errors, and the AST the runner plays.

pub mod ast;
pub mod error;
pub mod lexer;
pub mod parser;

pub use ast::*;
pub use error::ScenarioError;
pub use parser::parse;
