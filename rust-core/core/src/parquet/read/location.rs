//! Where in a file something happened, for error messages:
//! `bids.parquet: row group 0, column 'url', page 3: <what went wrong>`.
//!
//! Page ordinals count every page header of a column chunk from 0, the
//! dictionary page included, in file order.

use std::fmt;
use std::sync::Arc;

use crate::error::Error;

/// A file, optionally narrowed to a row group, a column and a page.
#[derive(Debug, Clone)]
pub struct Location {
    file: Arc<str>,
    row_group: Option<usize>,
    column: Option<Arc<str>>,
    page: Option<usize>,
}

impl Location {
    pub(crate) fn file(name: Arc<str>) -> Location {
        Location {
            file: name,
            row_group: None,
            column: None,
            page: None,
        }
    }

    pub(crate) fn row_group(&self, row_group: usize) -> Location {
        Location {
            row_group: Some(row_group),
            column: None,
            page: None,
            ..self.clone()
        }
    }

    /// `path` is the column's dotted path.
    pub(crate) fn column(&self, path: Arc<str>) -> Location {
        Location {
            column: Some(path),
            page: None,
            ..self.clone()
        }
    }

    pub(crate) fn page(&self, page: usize) -> Location {
        Location {
            page: Some(page),
            ..self.clone()
        }
    }

    /// Prefixes `error`'s message with this location; the status is kept.
    pub fn wrap(&self, error: Error) -> Error {
        error.context(self)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        let mut separator = ": ";
        if let Some(row_group) = self.row_group {
            write!(f, "{separator}row group {row_group}")?;
            separator = ", ";
        }
        if let Some(column) = &self.column {
            write!(f, "{separator}column '{column}'")?;
            separator = ", ";
        }
        if let Some(page) = self.page {
            write!(f, "{separator}page {page}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_every_level_given() {
        let file = Location::file("bids.parquet".into());
        let page = file.row_group(0).column("url".into()).page(3);
        let error = page.wrap(Error::corrupt_data("bad"));
        assert_eq!(
            error.message(),
            "bids.parquet: row group 0, column 'url', page 3: bad"
        );
        assert_eq!(file.to_string(), "bids.parquet");
        assert_eq!(
            file.column("a.b".into()).to_string(),
            "bids.parquet: column 'a.b'"
        );
        assert_eq!(
            page.row_group(2).to_string(),
            "bids.parquet: row group 2",
            "a new row group forgets the column and page"
        );
    }
}
