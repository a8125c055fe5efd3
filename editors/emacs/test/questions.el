;;; questions.el --- codex's questions in hermes-lsp.el, driven by questions_test.go -*- lexical-binding: t; -*-

;; CLIENT=eglot or lsp-mode, with hermes-lsp (the test's server on a fake codex, reached through
;; the test binary run as a bridge) for a text file.  A turn asks an MCP server's form and the
;; agent's questions (answered with `hermes-lsp-approve': the server says to, since they need
;; typing), wider permissions and a question with options (prompted by the server).  The person's
;; answers come from `script' (`completing-read', `read-string' and `read-passwd' are replaced);
;; each question is recorded with the approval's buffer shown meanwhile.  The client logs its
;; messages (eglot's events buffer, lsp-mode's `lsp-log-io'), which the summary carries for the
;; test to look for the secret.  The outcome is a JSON summary in $HERMES_EMACS_SUMMARY.

;;; Code:

(require 'json)
(setq package-directory-list (list (getenv "HERMES_EMACS_ELPA")))
(package-initialize)
(add-to-list 'load-path (getenv "HERMES_EMACS_PLUGIN"))
(require 'hermes-lsp)

(defvar summary nil)
(defun note (key value) (push (cons key value) summary))

(defun wait-for (what seconds pred)
  "Wait up to SECONDS for PRED, else fail with WHAT."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred)
      (error "Timed out waiting for %s" what))))

(defvar messages nil)
(advice-add 'message :after
            (lambda (fmt &rest args)
              (when fmt (push (apply #'format-message fmt args) messages))))

(defconst secret (getenv "HERMES_EMACS_SECRET"))

;; The person: each question takes the next answer of `script', which names how it must be asked.
(defvar script nil)
(defvar asked nil)
(defun answer (how prompt)
  "The scripted answer to PROMPT, asked with HOW; the question is recorded."
  (let ((buf (get-buffer "*hermes approval*"))
        (step (pop script)))
    (push (vector how prompt (if (and buf (get-buffer-window buf)) (with-current-buffer buf (buffer-string)) "")) asked)
    (unless (equal (car step) how)
      (error "Asked %S with %s, the script expected %S" prompt how step))
    (cdr step)))
(advice-add 'completing-read :override (lambda (prompt &rest _) (answer "completing-read" prompt)))
(advice-add 'read-string :override (lambda (prompt &rest _) (answer "read-string" prompt)))
(advice-add 'read-passwd :override (lambda (prompt &rest _) (copy-sequence (answer "read-passwd" prompt))))

(defun folder-status ()
  "The one folder's hermes.status."
  (aref (hermes-lsp-get (hermes-lsp-execute "hermes.status") :folders) 0))

(defun pending-p (kind)
  "Whether an approval of KIND waits, and its turn event has come.
The person reads the question from the server's message, as the
client has shown it, and then runs `hermes-lsp-approve'."
  (seq-some (lambda (a) (and (equal (hermes-lsp-get a :kind) kind)
                             (gethash (hermes-lsp-get a :approvalId) hermes-lsp--approvals)))
            (hermes-lsp-get (folder-status) :pendingApprovals)))

(defun turn-ended-p ()
  "Whether the folder's turn has ended."
  (not (equal (hermes-lsp-get (hermes-lsp-get (folder-status) :turn) :state) "running")))

(defun client-log ()
  "What the clients logged of their messages: eglot's events buffers, lsp-mode's logs."
  (mapconcat (lambda (b) (with-current-buffer b (buffer-string)))
             (seq-filter (lambda (b) (string-match-p "EGLOT\\|lsp-log" (buffer-name b))) (buffer-list))
             "\n"))

(defun run-flow ()
  "The turn and its questions."
  (setq script (list '("completing-read" . "Answer") '("read-string" . "2.5") '("read-string" . " 3 ")
                     '("read-string" . "svc")
                     '("completing-read" . "Answer") (cons "read-passwd" secret) '("completing-read" . "Prod")
                     '("completing-read" . "Allow once")
                     '("completing-read" . "SQLite")))
  (hermes-lsp-ask "set it up")
  (wait-for "the MCP server's form" 30 (lambda () (pending-p "elicitation")))
  (hermes-lsp-approve)
  (wait-for "the agent's questions" 30 (lambda () (pending-p "userInput")))
  (hermes-lsp-approve)
  (wait-for "the turn's end" 30 #'turn-ended-p)
  (note 'asked (vconcat (reverse asked)))
  (when script
    (error "Not asked: %S" script)))

(defun finish (code)
  (note 'messages (vconcat (reverse messages)))
  (note 'log (client-log))
  (with-temp-file (getenv "HERMES_EMACS_SUMMARY")
    (insert (json-encode summary)))
  (kill-emacs code))

(setq hermes-lsp-command (list (getenv "HERMES_EMACS_SERVER"))
      hermes-lsp-settings (json-parse-string (getenv "HERMES_EMACS_SETTINGS") :object-type 'plist))

(defun run-lsp-mode ()
  (require 'lsp-mode)
  (setq lsp-session-file (expand-file-name "lsp-session" (getenv "HERMES_EMACS_TMP"))
        lsp-auto-guess-root t lsp-enable-file-watchers nil lsp-restart 'ignore
        lsp-keep-workspace-alive nil lsp-enable-snippet nil lsp-modeline-code-actions-enable nil
        lsp-headerline-breadcrumb-enable nil lsp-enable-suggest-server-download nil
        ;; Every message logged: the secret's must not be.
        lsp-log-io t)
  (hermes-lsp-lsp-mode-setup)
  (find-file (getenv "HERMES_EMACS_FILE"))
  (text-mode)
  (lsp)
  (wait-for "hermes-lsp, initialized" 30
            (lambda () (and (hermes-lsp--lsp-workspace)
                            (eq (lsp--workspace-status (hermes-lsp--lsp-workspace)) 'initialized)))))

(defun run-eglot ()
  (require 'eglot)
  (hermes-lsp-eglot-setup)
  (find-file (getenv "HERMES_EMACS_FILE"))
  (text-mode)
  (let ((eglot-sync-connect t))
    (call-interactively #'eglot))
  (wait-for "eglot's server" 30 (lambda () (eglot-current-server))))

(condition-case err
    (progn
      (if (equal (getenv "HERMES_EMACS_CLIENT") "eglot") (run-eglot) (run-lsp-mode))
      (run-flow)
      (finish 0))
  (error (note 'error (format "%S" err)) (finish 1)))

;;; questions.el ends here
