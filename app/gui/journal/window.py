"""The journal window: browse, audit, correct, soft-delete, restore and export decisions.

Why it is mostly wiring: the bridge does every piece of disk work and answers by signal; the
list model pages over snapshots; the inspector, dialogs and panels render. This class decides
what happens when — which scope to load, which answer is stale, which dialog a save result
belongs to — and keeps the window's own state in QSettings: geometry and the summary language
for the user, filters, search text, scope, order and the splitter per journal (keyed by its
path), so two journals never share a filter.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QSettings,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QCloseEvent,
    QDesktopServices,
    QGuiApplication,
)
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QListView,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.banner import Banner, FileIssue
from app.gui.journal.bridge import JournalBridge
from app.gui.journal.catch_up import CatchUp
from app.gui.journal.conflict_actions import ConflictActions
from app.gui.journal.decision_delegate import DecisionDelegate
from app.gui.journal.decision_dialogs import NOTICE_MS, TITLE, DecisionDialogs
from app.gui.journal.decision_list_model import (
    EXPIRED_NOTICE,
    DecisionListModel,
    caption_text,
)
from app.gui.journal.filter_bar import FilterBar
from app.gui.journal.formatting import count_text
from app.gui.journal.import_actions import ImportActions
from app.gui.journal.inspector import Inspector
from app.gui.journal.list_place import ListPlace
from app.gui.journal.panel_updates import PanelUpdates
from app.gui.journal.profile_panel import ProfilePanel
from app.gui.journal.requests import (
    SCOPE_ALL,
    SCOPE_CURRENT,
    Catalog,
    FilterState,
    MovedAside,
    ScopeCount,
    ScopePage,
)
from app.gui.journal.scope_pane import ScopePane
from app.gui.journal.waiting_panel import WaitingPanel
from app.gui.journal.welcome import WelcomePage
from app.gui.journal.window_menus import WindowMenus
from app.gui.journal.window_settings import WindowSettings, journal_settings
from app.gui.widgets import palette
from app.gui.widgets.icons import app_icon, icon
from app.gui.widgets.show_folder import show_folder
from core.index.query import IndexFilter
from core.index.rows import IndexReadReport, ListRow
from core.index.snapshots import SnapshotCache
from core.journal import Journal
from core.profile.worker import ProfileRebuildWorker
from core.record.models import DecisionRecord

SELECT_DELAY_MS = 40


class JournalWindow(QMainWindow):
    """One per app; closing hides it, `shutdown` ends it.

    Args:
        journal: the journal to show; its index and profile store are shared with the app.
        settings: where geometry and filters are kept (default: the user's QSettings).
        snapshots: the page snapshot cache (tests pass one with a fake clock).
        profile_worker: the app's rebuild worker; without one the window runs its own.
        color_scheme: force light or dark (screenshots); None follows the system.
        open_url: opens the exported folder (default: QDesktopServices.openUrl).

    Signals:
        answer_requested(str): answer a pending decision (the app opens its capture window).
        first_page_shown(): the first page of a scope is in the list (benchmarks wait for it).
        scope_counted(): the scope's matches are counted and frozen; paging can start.
    """

    answer_requested = Signal(str)
    first_page_shown = Signal()
    scope_counted = Signal()

    def __init__(
        self,
        journal: Journal,
        *,
        settings: QSettings | None = None,
        snapshots: SnapshotCache | None = None,
        profile_worker: ProfileRebuildWorker | None = None,
        color_scheme: Qt.ColorScheme | None = None,
        open_url: Callable[[QUrl], object] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(TITLE)
        self.setWindowIcon(app_icon())
        self.setObjectName("journal-window")
        self.journal = journal
        self.settings = settings if settings is not None else journal_settings()
        self.open_url = open_url or QDesktopServices.openUrl
        self._scheme = color_scheme
        self.bridge = JournalBridge(
            journal, snapshots=snapshots, profile_worker=profile_worker, parent=self
        )
        self.record: DecisionRecord | None = None
        self._generation = 0
        self._wanted_id = ""
        self._edit_when_loaded = ""
        """A decision whose correction opens as soon as it is shown (an overrule)."""
        self._catalog_requested = False
        self._choice_pending = False
        """The user chose another filter: the next first page may give the decision on screen
        way to its newest. Every other reload (a commit, F5, an import, a sync) keeps it."""
        self._kept_outside = False
        """The last count said the decision on screen is not in the list's scope."""
        self._place = ListPlace()
        """Where the reader was when the list last reloaded; a chosen filter starts at the top."""
        self._shut_down = False
        self.current_project = ""
        self.kept = WindowSettings(self.settings, journal.root)
        self._auto_scope = True
        """Until the first page: a remembered "Current project" with nothing in it widens."""
        self._build()
        self.catch_up = CatchUp(self.bridge, self.isVisible, self)
        self.change_timer = self.catch_up.change_timer
        self.dialogs = DecisionDialogs(self, self.bridge, self)
        self._actions()
        self.panels = PanelUpdates(
            self.bridge,
            banner=self.banner,
            profile_panel=self.profile_panel,
            waiting_panel=self.waiting_panel,
            tabs=self.tabs,
            profile_label=self.profile_label,
            parent=self,
        )
        self._connect()
        self.conflicts = ConflictActions(
            self,
            self.bridge,
            self,
            inspector=self.inspector,
            list_view=self.list_view,
            open_history=self.history_action.trigger,
        )
        self._restore_settings()
        self.apply_color_scheme()

    # building ----------------------------------------------------------------------------------

    def _build(self) -> None:
        self.banner = Banner(self)
        self.filter_bar = FilterBar(self)
        self.model = DecisionListModel(self.bridge, self)
        self.list_view = QListView(self)
        self.list_view.setObjectName("decision-list")
        self.list_view.setAccessibleName("Decisions")
        self.list_view.setModel(self.model)
        self.list_view.setItemDelegate(DecisionDelegate(self.list_view))
        self.list_view.setUniformItemSizes(True)
        self.list_view.setSelectionMode(QListView.SelectionMode.SingleSelection)
        self.list_view.setVerticalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.scope_pane = ScopePane(self.list_view, NOTICE_MS, self)
        pane = self.scope_pane
        self.caption, self.notice, self.notice_timer = pane.caption, pane.notice, pane.notice_timer
        self.empty_page, self.empty_label = pane.empty_page, pane.empty_label
        self.elsewhere_button, self.list_stack = pane.elsewhere_button, pane.list_stack
        self.inspector = Inspector(self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("journal-splitter")
        self.splitter.addWidget(self.scope_pane)
        self.splitter.addWidget(self.inspector)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.browse_page = QWidget(self)
        page_layout = QVBoxLayout(self.browse_page)
        page_layout.setContentsMargins(0, 0, 0, 0)
        page_layout.addWidget(self.filter_bar)
        page_layout.addWidget(self.splitter, 1)
        self.welcome: WelcomePage | None = None
        """Built the first time a journal without decisions is shown (most never need it)."""
        self.journal_stack = QStackedWidget(self)
        self.journal_stack.setObjectName("journal-stack")
        self.journal_stack.addWidget(self.browse_page)
        journal_page = QWidget(self)
        QVBoxLayout(journal_page).addWidget(self.journal_stack)
        self.profile_panel = ProfilePanel(self)
        self.waiting_panel = WaitingPanel(self)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("journal-tabs")
        self.tabs.addTab(journal_page, icon("fork"), "&Journal")
        self.tabs.addTab(self.profile_panel, icon("rebuild"), "&Preference profile")
        self.tabs.addTab(self.waiting_panel, "&Waiting")
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.addWidget(self.banner)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        self.profile_label = QLabel(self)
        self.profile_label.setObjectName("status-profile")
        self.statusBar().addPermanentWidget(self.profile_label)
        self.select_timer = QTimer(self)
        self.select_timer.setObjectName("select-timer")
        self.select_timer.setSingleShot(True)
        self.select_timer.setInterval(SELECT_DELAY_MS)
        self.resize(1180, 760)

    def _actions(self) -> None:
        self.menus = WindowMenus(
            self,
            dialogs=self.dialogs,
            bridge=self.bridge,
            filter_bar=self.filter_bar,
            splitter=self.splitter,
            refresh_now=self.refresh_now,
            details=self.inspector.details,
            kept=self.kept,
        )
        menus = self.menus
        self.history_action, self.refresh_action = menus.history_action, menus.refresh_action
        self.delete_action, self.restore_action = menus.delete_action, menus.restore_action
        self.imports = ImportActions(self, self.bridge, self.profile_panel.outcomes, self)
        menus.install(self.imports)
        self.summary_actions = menus.summary_actions

    def _connect(self) -> None:
        b = self.bridge
        b.scope_loaded.connect(self._scope_loaded)
        b.scope_counted.connect(self._scope_counted)
        b.scope_failed.connect(self._scope_failed)
        b.page_loaded.connect(self.model.add_page)
        b.page_expired.connect(self.model.page_expired)
        b.catalog_loaded.connect(self._catalog_loaded)
        b.files_read.connect(self._files_read)
        b.files_read.connect(self.catch_up.files_read)
        b.record_committed.connect(self.catch_up.record_committed)
        self.catch_up.reload_wanted.connect(self._reload_changed)
        self.catch_up.status_message.connect(self.show_status)
        b.index_progressed.connect(self.scope_pane.indexing)
        b.record_loaded.connect(self._record_loaded)
        b.record_failed.connect(self._record_failed)
        self.panels.connect_answers()
        self.model.loaded_changed.connect(self._loaded_changed)
        self.model.snapshot_expired.connect(self._snapshot_expired)
        self.filter_bar.filter_changed.connect(self._filter_changed)
        self.filter_bar.search.returnPressed.connect(self.filter_bar.flush)
        self.list_view.selectionModel().currentChanged.connect(self._current_changed)
        self.list_view.activated.connect(self._open_current)
        self.select_timer.timeout.connect(self._load_selected)
        self.inspector.edit_requested.connect(self.dialogs.edit_current)
        self.inspector.history_requested.connect(self.dialogs.show_history)
        self.inspector.delete_requested.connect(self.dialogs.delete_current)
        self.inspector.restore_requested.connect(self.dialogs.restore_current)
        self.inspector.evidence_requested.connect(self.open_evidence)
        self.inspector.confirm_requested.connect(self.imports.confirm_current)
        self.tabs.currentChanged.connect(self.imports.tab_changed)
        self.scope_pane.elsewhere_requested.connect(self.filter_bar.show_all_projects)
        self.banner.rebuild_requested.connect(self.bridge.request_rebuild)
        self.banner.show_file_requested.connect(self.show_file)
        self.banner.move_aside_requested.connect(self.bridge.move_aside)
        b.moved_aside.connect(self._moved_aside)
        self.panels.connect_requests()
        self.profile_panel.decision_requested.connect(self.open_decision)
        self.waiting_panel.answer_requested.connect(self.answer_requested)
        hints = QGuiApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(self.apply_color_scheme)

    # opening and closing -----------------------------------------------------------------------

    def present(self) -> None:
        """Shows the window in front; the first call loads everything, later ones refresh."""
        reopened = not self.isVisible()
        if self.isMinimized():
            self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.show()
        self.raise_()
        self.activateWindow()
        if not self.catch_up.loaded_once:
            self.catch_up.first_open()
            self.reload_scope()  # the rest loads after the first page: it must not compete
        else:
            stale = self.catch_up.reopened()
            # closing forgot the current project: find it again
            if stale or (reopened and self.filter_bar.state.scope == SCOPE_CURRENT):
                self.reload_scope()
                self.bridge.load_catalog()

    def prepare(self) -> None:
        """Warms the window while hidden, so opening it later shows a page at once.

        How soon: bench/window_bench.py (first page visible).

        Polishing and one offscreen render build the style and glyph caches; a background
        catch-up brings the index up to date (otherwise the first query of a fresh process
        would stat every record file first); and the profile status check reads every record
        once (`CatchUp.prepare`).
        """
        self.grab()
        self.catch_up.prepare()

    @Slot()
    def refresh(self) -> None:
        """Catches up with other processes (at most every `catch_up.REFRESH_MIN_MS`)."""
        self.catch_up.refresh()

    @Slot()
    def refresh_now(self) -> None:
        """F5 and Journal → Refresh: catch up with the disk and reload the list, every time."""
        self.catch_up.refresh_now()

    @Slot()
    def _reload_changed(self) -> None:
        """The list, the catalog's counts and the decision on screen, read again."""
        self.reload_scope()
        self.bridge.load_catalog()
        if self.record is not None:
            self.bridge.load_record(self.record.id)

    @Slot()
    def refresh_waiting(self) -> None:
        self.bridge.load_pending()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Hides the window (the tray app keeps it for the next open) and saves its state."""
        self._save_settings()
        self.filter_bar.stop()
        self.scope_pane.stop()
        self.select_timer.stop()
        self.change_timer.stop()
        self.statusBar().clearMessage()  # also stops the status bar's own message timer
        self.dialogs.close_all()
        self.conflicts.close_all()
        self.imports.close_all()
        self.bridge.forget_current_project()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Closes the window and waits for its workers: for app exit and tests.

        Answers already queued for the GUI thread are still delivered afterwards; the slots
        that would start a timer check `_shut_down` and do nothing.
        """
        self._shut_down = True
        self.catch_up.stop()
        self.close()
        if self.dialogs.export is not None:
            self.dialogs.export.cancel()
        self.imports.shutdown()
        self.bridge.shutdown()

    # settings ----------------------------------------------------------------------------------

    def _restore_settings(self) -> None:
        kept = self.kept
        kept.restore_layout(self, self.splitter, self.profile_panel)
        self.filter_bar.set_state(kept.filters())
        self.menus.apply_summary_first(kept.summary_language())

    def _save_settings(self) -> None:
        language = self.inspector.details.summary_first
        self.kept.save(self, self.splitter, self.profile_panel, self.filter_bar.state, language)

    @Slot()
    def apply_color_scheme(self) -> None:
        palette.apply_scheme(self, self._scheme)
        self.update()

    # the list ----------------------------------------------------------------------------------

    def reload_scope(self, *, chosen: bool = False) -> None:
        """Applies the current filter from the first page with a new snapshot.

        Args:
            chosen: the user chose another filter, so a decision on screen that the new list
                does not hold gives way to its newest. Otherwise (the journal changed, F5, an
                import) the decision on screen stays, listed or not, whichever reload lands
                last: nothing is swapped under the reader.
        """
        self._generation += 1
        self._choice_pending = self._choice_pending or chosen
        if self._choice_pending:
            self._place = ListPlace()
        else:
            self._place = ListPlace.of(self.list_view, self.model)
        self.model.begin_scope(self._generation)
        self._set_caption("Loading…")
        state, kept = self.filter_bar.state, self._kept_id()
        self.bridge.open_scope(self._generation, state, kept, rows=self._place.rows)

    def _kept_id(self) -> str:
        """The decision the reader is looking at, or has just picked and is loading."""
        current = self.list_view.currentIndex().data(DecisionListModel.DecisionIdRole)
        if current:
            return str(current)
        return self._wanted_id or (self.record.id if self.record is not None else "")

    @Slot(object)
    def _filter_changed(self, _state: FilterState) -> None:
        self.reload_scope(chosen=True)

    @Slot(object)
    def _scope_loaded(self, page: ScopePage) -> None:
        if self._shut_down:
            return
        keep = self._kept_id()
        if not self.model.set_scope(page):
            return
        chosen, self._choice_pending = self._choice_pending, False
        self.current_project = page.current_project
        self._show_welcome(page.journal_empty)
        auto, self._auto_scope = self._auto_scope, False
        if not page.rows and page.elsewhere and auto:
            self.filter_bar.show_all_projects()  # a first look must not open on an empty list
            return
        self._show_list_or_empty(page.elsewhere)
        self._select_after_load(keep, chosen=chosen)
        self._place.restore(self.list_view, self.model)
        if not page.rows and (chosen or not keep):
            self.show_record(None)
        self.first_page_shown.emit()
        if not self._catalog_requested:
            self._catalog_requested = True
            self.bridge.load_catalog()
            self.bridge.load_profile()
            self.bridge.load_pending()

    @Slot(object)
    def _scope_counted(self, count: ScopeCount) -> None:
        if self._shut_down:
            return
        keep = self._kept_id()
        if not self.model.set_count(count):
            return
        self._kept_outside = bool(count.kept) and not count.kept_listed
        if count.rows is not None:
            if count.rows:
                self._show_welcome(False)  # a first decision landed while the page was loaded
            self._show_list_or_empty(0)
            self._select_after_load(keep, chosen=False)
            self._place.restore(self.list_view, self.model)
        self._show_outside_cue()
        if count.truncated:
            self.show_notice(
                f"{count_text(count.truncated, 'decision')} match; the first {count.total:,} "
                "are listed. Narrow the filter to see the rest."
            )
        self.scope_counted.emit()

    def _show_welcome(self, empty: bool) -> None:
        """A journal without a single decision shows what to do first instead of the list;
        the keyboard moves with the page, so it is never left on a hidden widget."""
        if empty and self.welcome is None:
            self.welcome = WelcomePage(self)
            self.welcome.import_requested.connect(self.imports.open_import)
            self.journal_stack.addWidget(self.welcome)
        page = self.welcome if empty and self.welcome is not None else self.browse_page
        if self.journal_stack.currentWidget() is page:
            return
        focused = QApplication.focusWidget()
        had_focus = focused is not None and self.journal_stack.isAncestorOf(focused)
        self.journal_stack.setCurrentWidget(page)
        if had_focus:
            (page if empty else self.filter_bar.search).setFocus()

    def _show_list_or_empty(self, elsewhere: int) -> None:
        """The list, or the empty state with a one-click way to the other projects' matches."""
        scoped = self.filter_bar.state.scope != SCOPE_ALL
        self.scope_pane.show_list_or_empty(self.model.rowCount(), elsewhere, scoped=scoped)

    def drop_deleted(self, decision_id: str) -> None:
        """A decision soft-deleted here leaves the list when deleted ones are hidden; the next
        decision (or the one before the last) takes its place."""
        state = self.filter_bar.state
        if state.include_deleted or state.status == "deleted":
            return
        row = self.model.remove_row(decision_id)
        if row < 0:
            return
        if self.model.rowCount():
            self._select_row(min(row, self.model.rowCount() - 1))
        else:
            self._show_list_or_empty(0)
            self.show_record(None)
            self.reload_scope()  # counts the other projects' matches for the empty page

    def _select_row(self, row: int) -> None:
        self.list_view.selectionModel().setCurrentIndex(
            self.model.index(row), QItemSelectionModel.SelectionFlag.ClearAndSelect
        )

    def _select_after_load(self, keep: str, *, chosen: bool) -> None:
        """Keeps the decision on screen selected when it is listed. When it is not, it stays
        on screen unselected (the count adds "not in this view"), unless the user chose
        another filter: then the newest listed takes its place. Nothing shown: the newest."""
        row = self.model.row_of(keep)
        if row < 0 and keep and not chosen:
            self._show_outside_cue()
            return
        if row < 0 and self.model.rowCount():
            row = 0
        if row >= 0:
            self._select_row(row)

    def _show_outside_cue(self) -> None:
        """ "Not in this view" beside a decision on screen that the list's scope leaves out:
        the last count said so, or every match is loaded and it is not among them."""
        record = self.record
        outside = False
        if record is not None and self.model.row_of(record.id) < 0 and self.model.counted:
            counted_it = self._kept_outside and self._kept_id() == record.id
            outside = counted_it or self.model.loaded >= self.model.total
        self.inspector.set_outside_view(outside)

    @Slot(int, str)
    def _scope_failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self.model.clear()
            self._set_caption(f"Could not load decisions: {message}")

    @Slot(int, int)
    def _loaded_changed(self, loaded: int, total: int) -> None:
        self._set_caption(caption_text(loaded, total, self.model.counted))

    def _set_caption(self, text: str) -> None:
        self.scope_pane.set_caption(text)

    @Slot()
    def _snapshot_expired(self) -> None:
        self.show_notice(EXPIRED_NOTICE)
        self.reload_scope()

    def show_notice(self, text: str) -> None:
        if self._shut_down:
            return
        self.scope_pane.show_notice(text)
        self.statusBar().showMessage(text, NOTICE_MS)

    @Slot(object)
    def _catalog_loaded(self, catalog: Catalog) -> None:
        self.filter_bar.set_catalog(catalog.projects, catalog.facets, catalog.current_project)
        self.banner.set_issues([FileIssue(i.path, i.error) for i in catalog.issues])
        self.waiting_panel.set_projects(
            [(p.project_id, p.alias) for p in catalog.projects],
            catalog.waiting_project or catalog.current_project,
        )
        self.profile_panel.rules.set_aliases({p.project_id: p.alias for p in catalog.projects})

    @Slot(object)
    def _files_read(self, report: IndexReadReport) -> None:
        """What the index read, shown: its progress ends, unreadable files in the banner (the
        catch-up decides whether the list reloads)."""
        self.scope_pane.indexing_done()
        self.banner.set_issues([FileIssue(i.path, i.error) for i in report.unreadable])

    # selection and the inspector ---------------------------------------------------------------

    @Slot(QModelIndex, QModelIndex)
    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid() and not self._shut_down:
            self.select_timer.start()

    @Slot()
    def _load_selected(self) -> None:
        decision_id = self.list_view.currentIndex().data(DecisionListModel.DecisionIdRole)
        if decision_id:
            self._wanted_id = str(decision_id)
            self.bridge.load_record(self._wanted_id)

    def open_decision(self, decision_id: str, *, edit: bool = False) -> None:
        """Shows a decision in the fork view, whether or not the list currently holds it;
        with `edit`, its correction opens once it is loaded (never another decision's)."""
        self._edit_when_loaded = decision_id if edit else ""
        self.tabs.setCurrentIndex(0)
        row = self.model.row_of(decision_id)
        if row >= 0:
            self.list_view.setCurrentIndex(self.model.index(row))
        else:
            self.list_view.selectionModel().clear()  # the list does not hold it: no row is it
        self.select_timer.stop()  # a pick still settling in the list gives way to this one
        self._wanted_id = decision_id
        self.bridge.load_record(decision_id)

    @Slot(QModelIndex)
    def _open_current(self, _index: QModelIndex) -> None:
        """Enter on a row: load it now and move the keyboard into the details."""
        self.select_timer.stop()
        self._load_selected()
        self.inspector.scroll_area.setFocus(Qt.FocusReason.ShortcutFocusReason)

    @Slot(object)
    def _record_loaded(self, record: DecisionRecord) -> None:
        """Shows the record the user asked for last; a late answer for an older pick is dropped,
        and so is a read that began before a newer revision of the one on screen arrived (a
        reload's read racing a save's answer)."""
        shown = self.record
        if shown is not None and shown.id == record.id and record.revision < shown.revision:
            return
        if record.id == self._wanted_id or self.is_shown(record.id):
            self.show_record(record)
            if record.id == self._edit_when_loaded:
                self._edit_when_loaded = ""
                self.dialogs.edit_current()

    @Slot(str)
    def show_file(self, path: str) -> None:
        """Opens the folder that holds a damaged file, in the file manager (or says it cannot)."""
        show_folder(Path(path).parent, self.open_url, self)

    @Slot(object)
    def _moved_aside(self, result: MovedAside) -> None:
        if self._shut_down:
            return
        parts = []
        if result.moved:
            where = Path(result.moved[0][1]).parent.parent
            names = ", ".join(Path(path).name for path, _target in result.moved)
            parts.append(f"Moved {names} to {where}.")
        parts.extend(f"Could not move {Path(path).name}: {why}" for path, why in result.failed)
        self.show_notice(" ".join(parts))
        self.bridge.load_catalog()
        self.reload_scope()

    @Slot(QUrl)
    def open_evidence(self, url: QUrl) -> None:
        """A file opens in the user's editor, an address in the browser; a missing file says so."""
        if url.isLocalFile() and not Path(url.toLocalFile()).exists():
            self.statusBar().showMessage(
                f"{url.toLocalFile()} does not exist on this computer.", NOTICE_MS
            )
            return
        self.open_url(url)

    @Slot(str, str)
    def _record_failed(self, decision_id: str, message: str) -> None:
        if decision_id == self._edit_when_loaded:
            self._edit_when_loaded = ""  # never a correction opened later, unasked
        self.statusBar().showMessage(f"Could not read {decision_id}: {message}", NOTICE_MS)

    def show_record(self, record: DecisionRecord | None) -> None:
        self.record = record
        self.inspector.show_record(record)
        if record is not None:
            self.model.replace_row(ListRow.of(record))
        else:
            self._wanted_id = ""
        self._show_outside_cue()
        self._update_actions()

    def is_shown(self, decision_id: str) -> bool:
        return self.record is not None and self.record.id == decision_id

    # what the dialogs and actions see (`view.JournalView`) ------------------------------------

    def update_row(self, record: DecisionRecord) -> None:
        self.model.replace_row(ListRow.of(record))

    def show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, NOTICE_MS)

    def scope_filter(self) -> IndexFilter:
        return self.filter_bar.state.to_index_filter(self.current_project)

    def scope_total(self) -> int:
        return self.model.total

    def summary_language(self) -> str:
        return self.inspector.details.summary_first

    def profile_shown(self) -> bool:
        return self.tabs.currentWidget() is self.profile_panel

    def _update_actions(self) -> None:
        self.menus.update(self.record)
