//! The arithmetic of a virtual list: rows of one height in a scrolled box,
//! of which only those near the view are drawn. A big cluster's event log
//! has tens of thousands of entries; drawing a thousand of them made the
//! browser's style, layout, paint and compositing of the log cost more at
//! every step than the rest of the page (issue 9).

use std::ops::Range;

/// Rows drawn beyond each edge of the view, so that a short scroll shows
/// rows already there and needs no redraw.
pub const OVERSCAN: usize = 20;

/// Where a scrolled list stands, in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// The list's `scrollTop`.
    pub top: f64,
    /// The list's visible height (`clientHeight`).
    pub height: f64,
    /// The height of one row.
    pub row: f64,
}

impl Default for Viewport {
    /// A guess until the list is measured: 22rem of 24px rows at 16px/rem.
    fn default() -> Viewport {
        Viewport { top: 0.0, height: 352.0, row: 24.0 }
    }
}

impl Viewport {
    fn row(&self) -> f64 {
        self.row.max(1.0)
    }

    /// The rows wholly or partly in view, of `count`.
    pub fn visible(&self, count: usize) -> Range<usize> {
        let first = (self.top.max(0.0) / self.row()).floor() as usize;
        let last = ((self.top.max(0.0) + self.height.max(0.0)) / self.row()).ceil() as usize;
        first.min(count)..last.min(count)
    }

    /// The rows to draw: those in view and [`OVERSCAN`] either side.
    pub fn drawn(&self, count: usize) -> Range<usize> {
        let visible = self.visible(count);
        visible.start.saturating_sub(OVERSCAN)..(visible.end + OVERSCAN).min(count)
    }

    /// Whether row `i` is wholly in view.
    pub fn shows(&self, i: usize) -> bool {
        let y = i as f64 * self.row();
        y >= self.top && y + self.row() <= self.top + self.height
    }

    /// The `scrollTop` that puts row `i` a third of the way down the view,
    /// as the short log's follower does.
    pub fn centred_on(&self, i: usize) -> f64 {
        (i as f64 * self.row() - self.height / 3.0).max(0.0)
    }

    /// The height of `rows` rows: what a spacer stands in for.
    pub fn extent(&self, rows: usize) -> f64 {
        rows as f64 * self.row()
    }
}

/// Whether a list drawn as `drawn` still covers what `now` shows.
pub fn covers(drawn: &Range<usize>, now: &Range<usize>) -> bool {
    now.is_empty() || (drawn.start <= now.start && now.end <= drawn.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VIEW: Viewport = Viewport { top: 2400.0, height: 240.0, row: 24.0 };

    #[test]
    fn draws_the_rows_in_view_and_a_margin() {
        assert_eq!(VIEW.visible(10_000), 100..110);
        assert_eq!(VIEW.drawn(10_000), 80..130);
        assert_eq!(Viewport { top: 0.0, ..VIEW }.drawn(10_000), 0..30);
        assert_eq!(VIEW.drawn(105), 80..105);
        assert_eq!(VIEW.drawn(0), 0..0);
    }

    #[test]
    fn follows_a_row_out_of_view() {
        assert!(VIEW.shows(100) && VIEW.shows(109));
        assert!(!VIEW.shows(99) && !VIEW.shows(110));
        let top = VIEW.centred_on(500);
        let moved = Viewport { top, ..VIEW };
        assert!(moved.shows(500));
        assert_eq!(moved.visible(10_000).start, 496); // a third of 240 px above: 3⅓ rows
        assert_eq!(VIEW.centred_on(1), 0.0);
    }

    #[test]
    fn redraws_only_past_the_margin() {
        let drawn = VIEW.drawn(10_000);
        assert!(covers(&drawn, &Viewport { top: 2400.0 + 19.0 * 24.0, ..VIEW }.visible(10_000)));
        assert!(!covers(&drawn, &Viewport { top: 2400.0 + 21.0 * 24.0, ..VIEW }.visible(10_000)));
    }

    #[test]
    fn survives_nonsense_measures() {
        let odd = Viewport { top: -50.0, height: -1.0, row: 0.0 };
        assert_eq!(odd.visible(10), 0..0);
        assert_eq!(odd.extent(3), 3.0);
        assert!(Viewport { top: f64::NAN, ..VIEW }.drawn(10).end <= 10);
    }
}
