;;; clients.el --- hermes-lsp.el in a real Emacs, driven by emacs_test.go -*- lexical-binding: t; -*-

;; CLIENT=lsp-mode: a text file with a main server (another hermes-lsp, registered as an ordinary
;; lsp-mode client) and hermes-lsp as the add-on beside it; CLIENT=eglot: hermes-lsp as eglot's
;; server for text-mode.  Either way `hermes-lsp-status' runs through it.  The outcome is a JSON
;; summary in $HERMES_EMACS_SUMMARY.

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

(defun finish (code)
  (with-temp-file (getenv "HERMES_EMACS_SUMMARY")
    (insert (json-encode summary)))
  (kill-emacs code))

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
        (note 'statusFolder (hermes-lsp-get (aref (hermes-lsp-get status :folders) 0) :folder)))
      (finish 0))
  (error (note 'error (format "%S" err)) (finish 1)))

;;; clients.el ends here
