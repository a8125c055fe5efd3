;;; clients.el --- hermes-lsp.el in a real Emacs, driven by emacs_test.go -*- lexical-binding: t; -*-

;; CLIENT=lsp-mode: a text file with a main server (another hermes-lsp, registered as an ordinary
;; lsp-mode client) and hermes-lsp as the add-on beside it; CLIENT=eglot: hermes-lsp as eglot's
;; server for text-mode.  Either way, through it: `hermes-lsp-status'; a turn whose patch approval
;; is asked in the minibuffer and dismissed (C-g), then answered with `hermes-lsp-approve' (the
;; diff in a diff-mode buffer); the buffer reloaded from disk; `hermes-lsp-undo'; and a reply in the
;; transcript (`hermes-lsp-transcript', `hermes-lsp-reply'); then a patch of two hunks, the second
;; reverted through its code action.  The person's answers come from
;; `answers' (completing-read is replaced).  The outcome is a JSON summary in
;; $HERMES_EMACS_SUMMARY.

;;; Code:

(require 'json)
(setq package-directory-list (list (getenv "HERMES_EMACS_ELPA")))
(package-initialize)
(add-to-list 'load-path (getenv "HERMES_EMACS_PLUGIN"))
(require 'hermes-lsp)

(defvar summary nil)
(defun note (key value) (push (cons key value) summary))

(defvar progress-seen nil "The Hermes progress seen in the mode line (eglot).")

(defun wait-for (what seconds pred)
  "Wait up to SECONDS for PRED, else fail with WHAT."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (let ((p (hermes-lsp--mode-line)))
        (when p (setq progress-seen p)))
      (accept-process-output nil 0.05))
    (unless (funcall pred)
      (error "Timed out waiting for %s" what))))

;; What the person reads: every message, the server's included.
(defvar messages nil)
(advice-add 'message :after
            (lambda (fmt &rest args)
              (when fmt (push (apply #'format-message fmt args) messages))))

(defun said (text)
  "Whether a message contained TEXT."
  (and (seq-find (lambda (m) (string-search text m)) messages) t))

;; The person: each completing-read takes the next of `answers' (`quit' is C-g) and is recorded
;; with the approval buffer shown meanwhile.
(defvar answers nil)
(defvar asked nil)
(advice-add 'completing-read :override
            (lambda (prompt &rest _)
              (let ((buf (get-buffer "*hermes approval*")))
                (push (vector prompt
                              (if (and buf (get-buffer-window buf)) (with-current-buffer buf (buffer-string)) "")
                              (if buf (with-current-buffer buf (symbol-name major-mode)) ""))
                      asked))
              (let ((a (pop answers)))
                (if (eq a 'quit) (signal 'quit nil) (or a (error "No answer left for %s" prompt))))))

(defun file-text (file)
  "FILE's text on disk."
  (with-temp-buffer (insert-file-contents file) (buffer-string)))

(defun folder-status ()
  "The one folder's hermes.status."
  (aref (hermes-lsp-get (hermes-lsp-execute "hermes.status") :folders) 0))

(defun turn-ended-p ()
  "Whether the folder's turn has ended."
  (not (equal (hermes-lsp-get (hermes-lsp-get (folder-status) :turn) :state) "running")))

(defun run-flow ()
  "The approval, undo and transcript flow, in the notes buffer."
  (let* ((file (getenv "HERMES_EMACS_FILE"))
         (before (file-text file))
         (notes (current-buffer)))
    ;; A patch approval: the prompt dismissed, then answered with hermes-lsp-approve.
    (setq answers (list 'quit "Allow once"))
    (let ((res (hermes-lsp-ask "patch the notes")))
      (note 'threadId (hermes-lsp-get res :threadId)))
    (wait-for "the approval prompt" 30 (lambda () asked))
    (wait-for "the dismissed approval, pending" 10
              (lambda () (= (length (hermes-lsp-get (folder-status) :pendingApprovals)) 1)))
    (hermes-lsp-approve)
    (note 'asked (vconcat (reverse asked)))
    (wait-for "the patch on disk" 30 (lambda () (string-match-p "from the agent" (file-text file))))
    (wait-for "the turn's end" 30 #'turn-ended-p)
    (wait-for "the buffer reloaded" 10
              (lambda () (with-current-buffer notes (equal (buffer-string) (file-text file)))))
    (note 'reloaded (with-current-buffer notes (and (not (buffer-modified-p)) (buffer-string))))
    (note 'autoRevert (with-current-buffer notes (and auto-revert-mode t)))
    (note 'progress progress-seen)
    ;; Undo: the file as it was, saved.
    (let ((res (with-current-buffer notes (hermes-lsp-undo))))
      (note 'undoRestored (hermes-lsp-get res :restored)))
    (note 'undone (equal (file-text file) before))
    (note 'undoRefused (said "refused the edit"))
    (note 'fallbackSaid (said "choose Allow or Deny from the code actions (`M-x hermes-lsp-approve`)"))
    ;; The transcript, and a reply in it.
    (let* ((tbuf (with-current-buffer notes (hermes-lsp-transcript)))
           (res (with-current-buffer tbuf (hermes-lsp-reply "and a follow-up"))))
      (note 'replyFolder (hermes-lsp-get res :folder))
      (note 'replyThread (hermes-lsp-get res :threadId))
      (wait-for "the reply in the transcript" 30
                (lambda () (with-current-buffer tbuf
                             (revert-buffer t t t)
                             (string-match-p "Replied from the transcript" (buffer-string)))))
      (note 'transcriptMode (with-current-buffer tbuf (and hermes-lsp-transcript-mode t))))))

(defun code-action (title)
  "Run the code action TITLE at point, through the buffer's client, as a person picks it."
  (if (bound-and-true-p eglot--managed-mode)
      ;; Not a mouse event: eglot asks with completing-read, not a popup menu.
      (let ((last-nonmenu-event ?a))
        (setq answers (list title))
        (eglot-code-actions (point) (point) nil t))
    (let ((action (seq-find (lambda (a) (equal (lsp:code-action-title a) title))
                            (lsp-code-actions-at-point))))
      (unless action (error "No code action %S" title))
      (lsp-execute-code-action action))))

(defun run-changes ()
  "A patch of two hunks: both changes under review; the second reverted through its code action."
  (let* ((file (getenv "HERMES_EMACS_FILE"))
         (notes (find-buffer-visiting file)))
    (with-current-buffer notes
      ;; The transcript's reply is written before its turn has ended: a prompt now would steer it.
      (wait-for "the reply's turn to end" 30 #'turn-ended-p)
      (setq answers (list "Allow once"))
      (hermes-lsp-ask "patch the second and fourth lines")
      (wait-for "the two-hunk patch in the buffer" 30
                (lambda () (string-match-p "Fourth, patched\\." (buffer-string))))
      (wait-for "the turn's end" 30 #'turn-ended-p)
      (let ((uri (hermes-lsp--uri)))
        (wait-for "the two changes" 10
                  (lambda () (= (length (hermes-lsp-get (hermes-lsp-execute "hermes.changes" (list :uri uri)) :changes)) 2)))
        (goto-char (point-min))
        (forward-line 3)
        (code-action "Hermes: revert this change")
        (wait-for "the reverted line" 15
                  (lambda () (not (string-match-p "Fourth, patched" (buffer-string)))))
        (note 'changesAfterRevert (length (hermes-lsp-get (hermes-lsp-execute "hermes.changes" (list :uri uri)) :changes))))
      (note 'revertedText (buffer-string))
      (note 'revertedModified (and (buffer-modified-p) t)))))

(defun finish (code)
  (with-temp-file (getenv "HERMES_EMACS_SUMMARY")
    (insert (json-encode summary)))
  (kill-emacs code))

(setq eglot-confirm-server-initiated-edits nil ; the undo's edit, without a question
      auto-revert-interval 0.2
      ;; Batch Emacs reads no file notification events: auto-revert polls instead.
      auto-revert-use-notify nil)
(setq hermes-lsp-command (list (getenv "HERMES_EMACS_SERVER") "--stdio")
      hermes-lsp-settings (json-parse-string (getenv "HERMES_EMACS_SETTINGS") :object-type 'plist))

(defun run-lsp-mode ()
  (require 'lsp-mode)
  (setq lsp-session-file (expand-file-name "lsp-session" (getenv "HERMES_EMACS_TMP"))
        lsp-auto-guess-root t lsp-enable-file-watchers nil lsp-restart 'ignore
        lsp-keep-workspace-alive nil lsp-enable-snippet nil lsp-modeline-code-actions-enable nil
        lsp-headerline-breadcrumb-enable nil lsp-enable-suggest-server-download nil)
  ;; The buffer's usual server: any other server lsp-mode runs for text files.
  (lsp-register-client
   (make-lsp-client :new-connection (lsp-stdio-connection (list (getenv "HERMES_EMACS_SERVER") "--stdio"))
                    :activation-fn (lsp-activate-on "plaintext")
                    :priority 1
                    :server-id 'main-server))
  (hermes-lsp-lsp-mode-setup)
  (find-file (getenv "HERMES_EMACS_FILE"))
  (text-mode)
  (lsp)
  (wait-for "two initialized workspaces" 30
            (lambda () (and (= (length (lsp-workspaces)) 2)
                            (seq-every-p (lambda (ws) (eq (lsp--workspace-status ws) 'initialized)) (lsp-workspaces)))))
  (note 'servers (vconcat (mapcar (lambda (ws) (symbol-name (lsp--client-server-id (lsp--workspace-client ws)))) (lsp-workspaces))))
  (note 'addOn (lsp--client-add-on? (gethash 'hermes-lsp lsp-clients))))

(defun run-eglot ()
  (require 'eglot)
  (hermes-lsp-eglot-setup)
  (find-file (getenv "HERMES_EMACS_FILE"))
  (text-mode)
  (let ((eglot-sync-connect t))
    (call-interactively #'eglot))
  (wait-for "eglot's server" 30 (lambda () (eglot-current-server)))
  (note 'servers (vector "eglot")))

(condition-case err
    (progn
      (if (equal (getenv "HERMES_EMACS_CLIENT") "eglot") (run-eglot) (run-lsp-mode))
      (let ((status (hermes-lsp-status)))
        (note 'statusFolders (length (hermes-lsp-get status :folders)))
        (note 'statusFolder (hermes-lsp-get (aref (hermes-lsp-get status :folders) 0) :folder))
        (note 'statusAgent (hermes-lsp--agent-line (hermes-lsp-get status :agent))))
      (run-flow)
      (run-changes)
      (finish 0))
  (error (note 'error (format "%S" err)) (finish 1)))

;;; clients.el ends here
