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

/// A virtual list's scroll as its component keeps it between drawings:
/// where the list stands, which rows were drawn, a scroll chosen while
/// drawing. `row` selects a row of the list, to measure its height.
pub struct VirtualList {
    pub viewport: Viewport,
    pub drawn: Range<usize>,
    /// A scroll chosen while drawing, applied once the rows are in the page.
    pub scroll_to: Option<f64>,
    measured: bool,
    row: &'static str,
}

impl VirtualList {
    pub fn new(row: &'static str) -> VirtualList {
        VirtualList { viewport: Viewport::default(), drawn: 0..0, scroll_to: None, measured: false, row }
    }

    /// Scrolls (once drawn) so that row `i` is in view, if it is not.
    pub fn reveal(&mut self, i: usize) {
        if !self.viewport.shows(i) {
            self.viewport.top = self.viewport.centred_on(i);
            self.scroll_to = Some(self.viewport.top);
        }
    }

    /// The rows to draw now, of `count`.
    pub fn draw(&mut self, count: usize) -> Range<usize> {
        self.drawn = self.viewport.drawn(count);
        self.drawn.clone()
    }

    /// After a drawing: applies the chosen scroll, and measures the list
    /// the first time (the rows' height and the view's were guesses). True
    /// when the measure calls for drawing again.
    pub fn settle(&mut self, list: &web_sys::Element) -> bool {
        if let Some(top) = self.scroll_to.take() {
            list.set_scroll_top(top as i32);
        }
        if self.measured {
            return false;
        }
        self.measured = true;
        let guess = self.viewport;
        self.measure(list);
        (guess.row, guess.height) != (self.viewport.row, self.viewport.height)
    }

    /// The list was scrolled (by the learner, or by `settle`): true when
    /// the rows now in view were not drawn.
    pub fn scrolled(&mut self, list: &web_sys::Element, count: usize) -> bool {
        self.measure(list);
        !covers(&self.drawn, &self.viewport.visible(count))
    }

    fn measure(&mut self, list: &web_sys::Element) {
        self.viewport.top = f64::from(list.scroll_top());
        self.viewport.height = f64::from(list.client_height());
        if let Some(row) = list.query_selector(self.row).ok().flatten() {
            let height = row.get_bounding_client_rect().height();
            if height > 0.0 {
                self.viewport.row = height;
            }
        }
    }
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
