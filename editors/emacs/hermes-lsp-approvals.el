;;; hermes-lsp-approvals.el --- approvals and codex's questions in hermes-lsp.el -*- lexical-binding: t; -*-

;; Copyright (c) 2026 The hermes-lsp authors
;; License: MIT (see LICENSE in the repository)
;; URL: https://github.com/hermes-lsp/hermes-lsp

;;; Commentary:

;; Part of hermes-lsp.el, which loads it: the approvals.  hermes-lsp asks them through
;; window/showMessageRequest (`hermes-lsp--prompt': the minibuffer, Deny the default, the command
;; or the patch's diff in a `diff-mode' buffer); `hermes-lsp-approve' answers one that waits.  The
;; turn events (`hermes-lsp--turn-event') bring each approval's details.
;;
;; codex also asks wider access (network, or paths to read or write beyond its sandbox: a
;; permissions approval, said in words), an MCP server's form or a page it asks the person to
;; visit (an elicitation), and the agent's own questions (userInput) (docs/protocol.md,
;; "Questions").  hermes-lsp prompts the questions answered by picking; for one to type it says to
;; run `hermes-lsp-approve', which asks in the minibuffer, one question at a time: Decline first
;; (the default: RET never answers), the options, Other… when any text is accepted, Stop turn;
;; `read-string' for text and numbers (checked), `read-passwd' for a secret, which is never shown,
;; messaged or kept, and is left out of the client's message log.

;;; Code:

(require 'cl-lib)
(require 'seq)
(require 'subr-x)

(declare-function hermes-lsp-get "hermes-lsp")
(declare-function hermes-lsp-execute "hermes-lsp")
(declare-function hermes-lsp--eglot-server "hermes-lsp")
(declare-function slot-exists-p "eieio-core")
(declare-function eieio-oref "eieio-core")
(declare-function eieio-oset "eieio-core")
(defvar lsp-log-io)

;;;; Approvals

(defvar hermes-lsp--approvals (make-hash-table :test #'equal)
  "The approvals waiting, by id, as the turn events announced them.")

(defun hermes-lsp--turn-event (params)
  "Keep the approvals a hermes/turnEvent notification's PARAMS announce or settle."
  (let* ((event (hermes-lsp-get params :event))
         (kind (hermes-lsp-get event :kind))
         (approval (hermes-lsp-get event :approval)))
    (when approval
      (pcase kind
        ("approvalWaiting" (puthash (hermes-lsp-get approval :approvalId) approval hermes-lsp--approvals))
        ("approvalResolved" (remhash (hermes-lsp-get approval :approvalId) hermes-lsp--approvals))))))

(defconst hermes-lsp--decisions
  '(("Deny" . "deny") ("Allow once" . "once") ("Allow for session" . "session") ("Stop turn" . "stop"))
  "The answers to an approval, Deny first, with hermes.approve's decisions.")

(defun hermes-lsp--approval-text (approval fallback)
  "The text of APPROVAL's buffer: its command, its patch as a unified diff.
Or the access a permissions approval asks for, or the questions of
an elicitation or userInput approval, in words.
FALLBACK is the text when APPROVAL is nil (not announced yet):
the server's own message."
  (cond
   ((null approval)
    (concat (replace-regexp-in-string "^" "# " fallback) "\n"))
   ((or (hermes-lsp--asks-p approval) (equal (hermes-lsp-get approval :kind) "permissions"))
    (hermes-lsp--question-text approval))
   (t
    (let ((head (format "# Hermes wants to %s (approval %s)\n"
                        (if (equal (hermes-lsp-get approval :kind) "exec") "run a command" "apply a patch")
                        (hermes-lsp-get approval :approvalId)))
          (reason (hermes-lsp-get approval :reason))
          (warning (hermes-lsp-get approval :warning)))
      (concat
       head
       (if (equal (hermes-lsp-get approval :kind) "exec")
           (format "# in %s\n%s\n" (hermes-lsp-get approval :cwd) (hermes-lsp-get approval :command))
         (mapconcat
          (lambda (c)
            (let* ((path (hermes-lsp-get c :path))
                   (type (hermes-lsp-get (hermes-lsp-get c :kind) :type))
                   (diff (or (hermes-lsp-get c :diff) ""))
                   (body (cond ((string-prefix-p "@@" diff) diff)
                               ((equal type "add") (replace-regexp-in-string "^" "+" (string-trim-right diff "\n")))
                               ((equal type "delete") (replace-regexp-in-string "^" "-" (string-trim-right diff "\n")))
                               (t diff))))
              (format "--- %s\n+++ %s (%s)\n%s%s" path path type body (if (string-suffix-p "\n" body) "" "\n"))))
          (hermes-lsp-get approval :changes) ""))
       (if (and reason (not (equal reason ""))) (format "# Reason: %s\n" reason) "")
       (if (and warning (not (equal warning ""))) (format "# ⚠ %s\n" warning) ""))))))

(defun hermes-lsp--show-approval (approval fallback)
  "Show APPROVAL (or FALLBACK, the server's message) in a `diff-mode' buffer.
Return the buffer's window."
  (let ((buf (get-buffer-create "*hermes approval*")))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (hermes-lsp--approval-text approval fallback))
        (goto-char (point-min)))
      (diff-mode)
      (setq buffer-read-only t))
    (display-buffer buf)))

(defun hermes-lsp--choose (prompt titles)
  "Ask PROMPT with TITLES to choose from; Deny (the first) is the default.
Return the title chosen, or nil when the person quits (\[keyboard-quit])."
  (condition-case nil
      (completing-read (format "%s [%s]: " prompt (car titles)) titles nil t nil nil (car titles))
    (quit nil)))

(defun hermes-lsp--prompt (message actions)
  "Answer the server's approval prompt: MESSAGE, and ACTIONS (a vector).
The command or the patch's diff shows in a `diff-mode' buffer while
the minibuffer asks; the default is the first action (Deny).
Return the title chosen, or nil when dismissed: the approval then
waits for `hermes-lsp-approve'."
  (let* ((titles (mapcar (lambda (a) (hermes-lsp-get a :title)) (append actions nil)))
         (id (and (string-match "(approval \\([^)[:space:]]+\\))" message) (match-string 1 message)))
         (approval (and id (gethash id hermes-lsp--approvals)))
         (titles (if approval (remove "Show diff" titles) titles))
         ;; A permissions prompt's own message says it all, what lies outside the folder too.
         (shown (and approval (not (equal (hermes-lsp-get approval :kind) "permissions")) approval))
         (window (and id (hermes-lsp--show-approval shown message)))
         ;; A question's prompt (it offers Decline) is on the lines after the first (who asks): all
         ;; but the options' descriptions, which the approval's buffer shows.
         (prompt (if (member hermes-lsp--decline titles)
                     (string-join (seq-remove (lambda (l) (string-prefix-p "- " l)) (split-string message "\n")) " ")
                   (car (split-string message "\n")))))
    (unwind-protect
        (hermes-lsp--choose prompt (or titles '("OK")))
      (when (window-live-p window)
        (quit-restore-window window)))))

;;;###autoload
(defun hermes-lsp-approve ()
  "Answer a waiting approval: Deny, Allow once, Allow for session or Stop turn.
The command or the patch's diff shows in a `diff-mode' buffer;
\[keyboard-quit] leaves the approval waiting (hermes.approve).
codex's questions (an MCP server's form, the agent's questions) are
asked one by one instead: Decline first, then the options, or the
answer to type (a secret with `read-passwd')."
  (interactive)
  (let* ((status (hermes-lsp-execute "hermes.status"))
         (pending (seq-mapcat (lambda (f) (append (hermes-lsp-get f :pendingApprovals) nil))
                              (append (hermes-lsp-get status :folders) nil))))
    (unless pending
      (user-error "Hermes: no approval is waiting"))
    (let* ((choices (mapcar (lambda (a) (cons (format "%s: %s" (hermes-lsp-get a :kind) (hermes-lsp-get a :summary)) a))
                            pending))
           (summary (if (cdr choices)
                        (cdr (assoc (completing-read "Hermes: which approval? " choices nil t) choices))
                      (car pending)))
           (id (hermes-lsp-get summary :approvalId))
           ;; As its turn event announced it (the MCP server, its message), else hermes.status's summary.
           (approval (or (gethash id hermes-lsp--approvals) summary)))
      (if (hermes-lsp--asks-p approval)
          (hermes-lsp--answer-questions id approval)
        (hermes-lsp--decide id summary)))))

(defun hermes-lsp--decide (id summary)
  "Ask for the decision on approval ID and send it.
SUMMARY is the approval as hermes.status lists it."
  (let* ((window (hermes-lsp--show-approval (gethash id hermes-lsp--approvals)
                                            (format "Hermes wants %s%s (approval %s)"
                                                    (if (equal (hermes-lsp-get summary :kind) "permissions") "" "to ")
                                                    (hermes-lsp-get summary :summary) id)))
         (choice (unwind-protect
                     (hermes-lsp--choose (format "Hermes: %s" (hermes-lsp-get summary :summary))
                                         (mapcar #'car hermes-lsp--decisions))
                   (when (window-live-p window)
                     (quit-restore-window window)))))
    (if (null choice)
        (message "Hermes: the approval still waits (M-x hermes-lsp-approve)")
      (hermes-lsp-execute "hermes.approve"
                          (list :approvalId id :decision (cdr (assoc choice hermes-lsp--decisions)))))))

(defun hermes-lsp--answer-questions (id approval)
  "Ask the questions of approval ID (APPROVAL) and send the answers.
They go with hermes.approve.  The questions show in the approval's
buffer meanwhile.  A secret answer is sent with the client's
message log off, then cleared."
  (let* ((window (hermes-lsp--show-approval approval nil))
         (reply (unwind-protect
                    (hermes-lsp--ask-questions approval)
                  (when (window-live-p window)
                    (quit-restore-window window))))
         (answers (cdr reply)))
    (cond
     ((null reply)
      (message "Hermes: the question still waits (M-x hermes-lsp-approve)"))
     (t
      (unwind-protect
          (hermes-lsp--unlogged
           (lambda ()
             (hermes-lsp-execute "hermes.approve"
                                 (append (list :approvalId id :decision (car reply))
                                         (and answers (> (hash-table-count answers) 0) (list :answers answers))))))
        (when answers
          (hermes-lsp--forget-secrets approval answers)))))))

;;;; codex's questions

(defconst hermes-lsp--decline "Decline" "The answer that declines a question.")
(defconst hermes-lsp--stop "Stop turn" "The answer that declines a question and stops the turn.")
(defconst hermes-lsp--other "Other…" "The answer that types one's own text.")
(defconst hermes-lsp--finish "Done choosing" "The answer that ends the picks of a multiple choice.")

(defun hermes-lsp--asks-p (approval)
  "Whether APPROVAL asks questions (an elicitation or userInput approval)."
  (member (hermes-lsp-get approval :kind) '("elicitation" "userInput")))

(defun hermes-lsp--list (v)
  "V, a JSON array (a vector, or a list), as a list."
  (append v nil))

(defun hermes-lsp--access-words (permissions)
  "What PERMISSIONS ask for, in words: a list of strings.
Network access, then the paths to read and write, \"read and
write\" where both are asked."
  (let* ((read (hermes-lsp--list (hermes-lsp-get permissions :read)))
         (write (hermes-lsp--list (hermes-lsp-get permissions :write)))
         (both (seq-filter (lambda (p) (member p write)) read)))
    (delq nil
          (list (and (eq (hermes-lsp-get permissions :network) t) "network access")
                (and both (concat "read and write " (string-join both ", ")))
                (let ((r (seq-difference read both))) (and r (concat "read " (string-join r ", "))))
                (let ((w (seq-difference write both))) (and w (concat "write " (string-join w ", "))))))))

(defun hermes-lsp--asker (approval)
  "Who asks APPROVAL's questions: its MCP server, or Hermes."
  (let ((server (hermes-lsp-get approval :server)))
    (cond ((not (equal (hermes-lsp-get approval :kind) "elicitation")) "Hermes")
          ((and server (not (equal server ""))) (format "The MCP server %s" server))
          (t "An MCP server"))))

(defun hermes-lsp--headline (approval)
  "APPROVAL's question on one line: who asks what (the MCP tool, the message).
An approval as hermes.status lists it has no message: its summary
says what is asked."
  (let ((tool (hermes-lsp-get approval :tool))
        (msg (or (hermes-lsp-get approval :message)
                 (and (equal (hermes-lsp-get approval :kind) "elicitation") (hermes-lsp-get approval :summary)))))
    (concat (hermes-lsp--asker approval) " asks"
            (if (and tool (not (equal tool ""))) (format " to run its tool %s" tool) "")
            (if (and msg (not (equal msg ""))) (concat ": " (replace-regexp-in-string "\n+" " " msg)) ""))))

(defun hermes-lsp--question-line (q)
  "Question Q on one line: \"Header: text\"."
  (let ((header (hermes-lsp-get q :header))
        (text (or (hermes-lsp-get q :text) "")))
    (if (and header (not (equal header "")) (not (equal header text)))
        (format "%s: %s" header text)
      text)))

(defun hermes-lsp--options (q)
  "The options of question Q: its own, or Yes and No for a boolean."
  (or (hermes-lsp--list (hermes-lsp-get q :options))
      (and (equal (hermes-lsp-get q :type) "boolean")
           (list (list :value "true" :label "Yes") (list :value "false" :label "No")))))

(defun hermes-lsp--option-title (o)
  "Option O's title in the minibuffer: its label and what it means."
  (let ((desc (hermes-lsp-get o :description)))
    (concat (hermes-lsp-get o :label) (if (and desc (not (equal desc ""))) (concat " — " desc) ""))))

(defun hermes-lsp--question-text (approval)
  "The text of a permissions or question APPROVAL's buffer.
It is in `diff-mode' comments, as the other approvals' headers."
  (let ((id (hermes-lsp-get approval :approvalId))
        (reason (hermes-lsp-get approval :reason)))
    (concat
     (if (equal (hermes-lsp-get approval :kind) "permissions")
         (format "# Hermes wants %s (approval %s)\n# Allow once grants it for this turn, Allow for session for the session\n"
                 (string-join (or (hermes-lsp--access-words (hermes-lsp-get approval :permissions))
                                  (list (hermes-lsp-get approval :summary)))
                              "; ")
                 id)
       (concat
        (format "# %s (approval %s)\n" (hermes-lsp--headline approval) id)
        (let ((url (hermes-lsp-get approval :url)))
          (if (and url (not (equal url "")))
              (format "# Open this page yourself (Hermes does not open it), then choose Done:\n# %s\n" url)
            ""))
        (mapconcat (lambda (q)
                     (concat (format "# - %s%s%s\n" (hermes-lsp--question-line q)
                                     (if (eq (hermes-lsp-get q :required) t) " (required)" "")
                                     (if (eq (hermes-lsp-get q :secret) t) " (secret)" ""))
                             (mapconcat (lambda (o) (format "#     %s\n" (hermes-lsp--option-title o)))
                                        (hermes-lsp--options q) "")))
                   (hermes-lsp--list (hermes-lsp-get approval :questions)) "")))
     (if (and reason (not (equal reason ""))) (format "# Reason: %s\n" reason) ""))))

(defun hermes-lsp--check-answer (q value)
  "What is wrong with VALUE typed for question Q (never VALUE itself), or nil."
  (let ((v (string-trim value))
        (type (hermes-lsp-get q :type)))
    (cond ((equal v "") (and (eq (hermes-lsp-get q :required) t) "an answer is needed"))
          ((and (equal type "integer") (not (string-match-p "\\`[-+]?[0-9]+\\'" v))) "a whole number, like 3")
          ((and (equal type "number")
                (not (string-match-p "\\`[-+]?\\([0-9]+\\.?[0-9]*\\|\\.[0-9]+\\)\\([eE][-+]?[0-9]+\\)?\\'" v)))
           "a number, like 3 or 2.5"))))

(defun hermes-lsp--read-answer (q prompt)
  "Read a typed answer to question Q, asking with PROMPT: a list of strings.
A secret is read with `read-passwd' (nothing shows); a wrong answer
is asked again with what is wrong.  \\[keyboard-quit] leaves the
approval waiting (throws to `hermes-lsp--reply' with nil)."
  (let ((problem nil) (answer nil) (done nil))
    (while (not done)
      (let* ((p (format "%s%s: " prompt (if problem (format " (%s)" problem) "")))
             (value (condition-case nil
                        (if (eq (hermes-lsp-get q :secret) t)
                            (read-passwd p)
                          (read-string p nil nil (car (hermes-lsp--list (hermes-lsp-get q :default)))))
                      (quit (throw 'hermes-lsp--reply nil)))))
        (setq problem (hermes-lsp--check-answer q value))
        (unless problem
          (setq done t
                answer (cond ((equal (string-trim value) "") nil)
                             ((member (hermes-lsp-get q :type) '("number" "integer")) (list (string-trim value)))
                             (t (list value)))))))
    answer))

(defun hermes-lsp--pick (prompt titles)
  "Ask PROMPT with TITLES (Decline first, the default); return the title.
Decline and Stop turn throw to `hermes-lsp--reply' with their
decision, \\[keyboard-quit] with nil."
  (let ((choice (hermes-lsp--choose prompt titles)))
    (cond ((null choice) (throw 'hermes-lsp--reply nil))
          ((equal choice hermes-lsp--decline) (throw 'hermes-lsp--reply (list "deny")))
          ((equal choice hermes-lsp--stop) (throw 'hermes-lsp--reply (list "stop"))))
    choice))

(defun hermes-lsp--ask-question (q prompt)
  "Ask question Q with PROMPT; return its answers, a list of strings."
  (let* ((options (hermes-lsp--options q))
         (other (eq (hermes-lsp-get q :other) t))
         (type (hermes-lsp-get q :type))
         (secret (eq (hermes-lsp-get q :secret) t)))
    (cond
     ((equal type "multiChoice")
      (let ((picked nil) (done nil))
        (while (not done)
          (let* ((titles (mapcar (lambda (o) (cons (concat (if (member (hermes-lsp-get o :value) picked) "[x] " "[ ] ")
                                                          (hermes-lsp--option-title o))
                                                  o))
                                 options))
                 (choice (hermes-lsp--pick prompt (append (list hermes-lsp--decline
                                                                (format "%s (%d picked)" hermes-lsp--finish (length picked)))
                                                          (mapcar #'car titles)
                                                          (and other (list hermes-lsp--other))
                                                          (list hermes-lsp--stop))))
                 (o (cdr (assoc choice titles))))
            (cond (o (let ((v (hermes-lsp-get o :value)))
                       (setq picked (if (member v picked) (delete v picked) (append picked (list v))))))
                  ((equal choice hermes-lsp--other)
                   (setq picked (append picked (hermes-lsp--read-answer (list :type "text" :secret secret) prompt))))
                  ((and (null picked) (eq (hermes-lsp-get q :required) t))
                   (message "Hermes: pick at least one"))
                  (t (setq done t)))))
        picked))
     ((or options (equal type "choice"))
      (let* ((titles (mapcar (lambda (o) (cons (hermes-lsp--option-title o) o)) options))
             (choice (hermes-lsp--pick prompt (append (list hermes-lsp--decline) (mapcar #'car titles)
                                                      (and other (list hermes-lsp--other)) (list hermes-lsp--stop)))))
        (if (equal choice hermes-lsp--other)
            (hermes-lsp--read-answer (list :type "text" :secret secret :required (hermes-lsp-get q :required)) prompt)
          (list (hermes-lsp-get (cdr (assoc choice titles)) :value)))))
     (t (hermes-lsp--read-answer q prompt)))))

(defun hermes-lsp--ask-questions (approval)
  "Ask APPROVAL's questions in the minibuffer, one at a time.
Return (DECISION . ANSWERS): (\"once\" . ANSWERS), ANSWERS a hash
table of question id to a vector of strings; (\"deny\") for
Decline; (\"stop\") for Stop turn; or nil when the person quit.  A
form with a question to type first asks Decline, Answer or Stop
turn (a typed answer has no Decline of its own); a page to visit
asks Decline, Done or Stop turn; a form without fields Decline,
Accept or Stop turn."
  (catch 'hermes-lsp--reply
    (let* ((head (hermes-lsp--headline approval))
           (questions (hermes-lsp--list (hermes-lsp-get approval :questions)))
           (url (hermes-lsp-get approval :url))
           (answers (make-hash-table :test #'equal))
           (n 0))
      (cond
       ((and url (not (equal url "")))
        (hermes-lsp--pick (format "%s; open %s yourself, then Done" head url) (list hermes-lsp--decline "Done" hermes-lsp--stop)))
       ((null questions)
        (hermes-lsp--pick head (list hermes-lsp--decline "Accept" hermes-lsp--stop)))
       ((seq-some (lambda (q) (and (null (hermes-lsp--options q)) (not (member (hermes-lsp-get q :type) '("choice" "multiChoice")))))
                  questions)
        (hermes-lsp--pick head (list hermes-lsp--decline "Answer" hermes-lsp--stop))))
      (dolist (q questions)
        (setq n (1+ n))
        (let ((values (hermes-lsp--ask-question
                       q (format "%s (%d/%d) %s" (if (= n 1) head (hermes-lsp--asker approval)) n (length questions)
                                 (hermes-lsp--question-line q)))))
          (when values
            (puthash (hermes-lsp-get q :id) (vconcat values) answers))))
      (cons "once" answers))))

(defun hermes-lsp--unlogged (fn)
  "Call FN with the client's log of its messages off, and return its value.
A secret answer goes in the request FN sends: eglot's events buffer
\(jsonrpc's, kept in memory) and lsp-mode's `lsp-log-io' would
otherwise keep it."
  (let ((server (hermes-lsp--eglot-server))
        (slot nil))
    (when server
      (setq slot (seq-find (lambda (s) (slot-exists-p server s))
                           '(-events-buffer-scrollback-size -events-buffer-config))))
    (if (null slot)
        (let ((lsp-log-io nil))
          (funcall fn))
      (let ((old (eieio-oref server slot)))
        (eieio-oset server slot (if (eq slot '-events-buffer-config) (plist-put (copy-sequence old) :size 0) 0))
        (unwind-protect
            (funcall fn)
          (eieio-oset server slot old))))))

(defun hermes-lsp--forget-secrets (approval answers)
  "Clear in ANSWERS the strings typed for APPROVAL's secret questions."
  (dolist (q (hermes-lsp--list (hermes-lsp-get approval :questions)))
    (when (eq (hermes-lsp-get q :secret) t)
      (seq-do (lambda (s) (clear-string s)) (gethash (hermes-lsp-get q :id) answers []))
      (remhash (hermes-lsp-get q :id) answers))))

(provide 'hermes-lsp-approvals)

;;; hermes-lsp-approvals.el ends here
